import {
  cleanupAll,
  createDatabase,
  dropDatabase,
  type ProxyHandle,
  redactUrl,
  startPostgres,
  startToxiproxy,
} from '@pipeflush/testkit'
import postgres from 'postgres'
import type { Target } from '../series/types.ts'
import { createSchema, truncateAll } from './schema.ts'

const DATABASE = 'pipeflush_bench'

/** The PostgreSQL and toxiproxy a run uses, the benchmark database, and the proxy in front of it. */
export interface BenchEnv {
  /** Where the series connect: the benchmark database through the proxy. */
  readonly target: Target
  readonly proxy: ProxyHandle
  readonly postgres: { readonly version: string; readonly provider: string }
  readonly toxiproxy: { readonly version: string; readonly provider: string }
  /** Empties the benchmark tables (direct connection, not proxied). */
  truncate(): Promise<void>
  /** Drops the benchmark database and stops what was started. */
  stop(): Promise<void>
}

/**
 * Starts (or reuses, from DATABASE_URL / TOXIPROXY_URL) a PostgreSQL and a toxiproxy through the test
 * kit, creates the `pipeflush_bench` database with the benchmark tables, and a proxy in front of it.
 * Falls back to the given database itself when it cannot create one (tables are dropped and created).
 */
export async function startBenchEnv(log: (line: string) => void): Promise<BenchEnv> {
  const [pg, tp] = await Promise.all([startPostgres(), startToxiproxy()])
  log(`PostgreSQL ${pg.version} (${pg.provider}, ${redactUrl(pg.url)}); toxiproxy ${tp.version} (${tp.provider})`)
  let url: string
  let created = false
  try {
    url = await createDatabase(pg.url, DATABASE)
    created = true
  } catch (e) {
    url = pg.url
    log(`could not create database ${DATABASE} (${e instanceof Error ? e.message : e}); using ${redactUrl(url)}`)
  }
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await createSchema(admin)
  const proxy = await tp.proxy('pipeflush_bench', { host: pg.host, port: pg.port })
  return {
    target: { url: proxy.rewriteUrl(url) },
    proxy,
    postgres: { version: pg.version, provider: pg.provider },
    toxiproxy: { version: tp.version, provider: tp.provider },
    truncate: () => truncateAll(admin),
    async stop() {
      await admin.end({ timeout: 5 }).catch(() => {})
      await proxy.remove().catch(() => {})
      if (created) await dropDatabase(pg.url, DATABASE).catch(() => {})
      await tp.stop()
      await pg.stop()
      await cleanupAll()
    },
  }
}
