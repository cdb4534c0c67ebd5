import type { TestProject } from 'vitest/node'
import { startPostgres } from '../postgres/start-postgres.ts'
import { cleanupAll } from '../support/cleanup.ts'
import { redactUrl } from '../support/redact.ts'
import { startToxiproxy } from '../toxiproxy/start-toxiproxy.ts'
import type { ProvidedServices } from './provided.ts'
import './provided.ts'

/**
 * Vitest global setup of the `integration` project: one PostgreSQL and one toxiproxy for the whole
 * run, stopped when it ends (also on failure or Ctrl-C).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now()
  const [pg, tp] = await Promise.all([startPostgres(), startToxiproxy()])
  const services: ProvidedServices = {
    adminUrl: pg.url,
    postgresHost: pg.host,
    postgresPort: pg.port,
    postgresProvider: pg.provider,
    postgresVersion: pg.version,
    toxiproxyUrl: tp.apiUrl,
    toxiproxyProvider: tp.provider,
    toxiproxyVersion: tp.version,
  }
  project.provide('pipeflush', services)
  console.log(
    `[pipeflush testkit] PostgreSQL ${pg.version} (${pg.provider}, ${redactUrl(pg.url)}), toxiproxy ${tp.version} (${tp.provider}, ${tp.apiUrl}) ready in ${Date.now() - started} ms`,
  )
  return async () => {
    await tp.stop()
    await pg.stop()
    await cleanupAll()
  }
}
