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
import { createConduitSchema, resetConduit } from './conduit-schema.ts'
import { createSchema, resetShop, truncateAll } from './schema.ts'

const DATABASE = 'pipeflush_bench'
/** The Conduit cell's database (its tables' names, `tag` among them, are taken in the other). */
const CONDUIT_DATABASE = 'pipeflush_bench_conduit'

/** The PostgreSQL and toxiproxy a run uses, the benchmark database, and the proxy in front of it. */
export interface BenchEnv {
  /** Where the series connect: the benchmark database through the proxy. */
  readonly target: Target
  /** The Conduit cell's database through the same proxy. */
  readonly conduit: Target
  readonly proxy: ProxyHandle
  readonly postgres: { readonly version: string; readonly provider: string }
  readonly toxiproxy: { readonly version: string; readonly provider: string }
  /** Empties the benchmark tables (direct connection, not proxied). */
  truncate(): Promise<void>
  /** Empties and reseeds the realistic workload's shop (direct connection, not proxied). */
  resetShop(): Promise<void>
  /** Empties and reseeds the Conduit tables (direct connection, not proxied). */
  resetConduit(): Promise<void>
  /** Drops the benchmark database and stops what was started. */
  stop(): Promise<void>
}

/**
 * Starts (or reuses, from DATABASE_URL / TOXIPROXY_URL) a PostgreSQL and a toxiproxy through the test
 * kit, creates the `pipeflush_bench` database with the benchmark tables and `pipeflush_bench_conduit`
 * with the Conduit example's, and a proxy in front of the server. Never writes into another database:
 * when they cannot be created, it says so and stops.
 */
export async function startBenchEnv(log: (line: string) => void): Promise<BenchEnv> {
  const [pg, tp] = await Promise.all([startPostgres(), startToxiproxy()])
  log(
    `PostgreSQL ${pg.version} (${pg.provider}, ${redactUrl(pg.url)}); toxiproxy ${tp.version} (${tp.provider})`,
  )
  let url: string | undefined
  let conduitUrl: string
  try {
    url = await createDatabase(pg.url, DATABASE)
    conduitUrl = await createDatabase(pg.url, CONDUIT_DATABASE)
  } catch (e) {
    if (url) await dropDatabase(pg.url, DATABASE).catch(() => {})
    await tp.stop()
    await pg.stop()
    throw new Error(
      `could not create the databases ${DATABASE} and ${CONDUIT_DATABASE} on ${redactUrl(pg.url)} (${e instanceof Error ? e.message : e}): the benchmark needs a role allowed to create databases`,
    )
  }
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await createSchema(admin)
  const conduitAdmin = postgres(conduitUrl, { max: 1, onnotice: () => {} })
  await createConduitSchema(conduitAdmin)
  const proxy = await tp.proxy('pipeflush_bench', { host: pg.host, port: pg.port })
  return {
    target: { url: proxy.rewriteUrl(url) },
    conduit: { url: proxy.rewriteUrl(conduitUrl) },
    proxy,
    postgres: { version: pg.version, provider: pg.provider },
    toxiproxy: { version: tp.version, provider: tp.provider },
    truncate: () => truncateAll(admin),
    resetShop: () => resetShop(admin),
    resetConduit: () => resetConduit(conduitAdmin),
    async stop() {
      await admin.end({ timeout: 5 }).catch(() => {})
      await conduitAdmin.end({ timeout: 5 }).catch(() => {})
      await proxy.remove().catch(() => {})
      await dropDatabase(pg.url, DATABASE).catch(() => {})
      await dropDatabase(pg.url, CONDUIT_DATABASE).catch(() => {})
      await tp.stop()
      await pg.stop()
      await cleanupAll()
    },
  }
}
