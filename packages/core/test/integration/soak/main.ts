// `npm run soak -- --seconds 600 [--runs 10] [--driver pg|postgres.js] [--seed 1] [--pgbouncer | --pgpool | --tls]`: the
// chaos soak (`soak-child.ts`) for as long as asked, each run in a child process under Node's defaults,
// on a PostgreSQL and a toxiproxy the test kit starts (or `DATABASE_URL` / `TOXIPROXY_URL`); with
// `--pgbouncer`, through a PgBouncer in transaction pooling mode between the proxy and the server; with
// `--pgpool`, through a Pgpool-II in front of a primary and its standby (load balancing off: a read
// the standby answered late would be stale, not wrong); with `--tls`, on a server of its own that
// speaks TLS, the pool connecting over TLS (faults inside records).
// Prints what each run checked and found; exits 1 when any run crashed or broke a guarantee.
import { parseArgs } from 'node:util'
import {
  cleanupAll,
  createDatabase,
  type DriverName,
  type StartedCluster,
  startCluster,
  startPostgres,
  startToxiproxy,
} from '@pipeflush/testkit'
import { findPgBouncer, type StartedPgBouncer, startPgBouncer } from '../faults/pgbouncer.ts'
import { findPgpool, type StartedPgpool, startPgpool } from '../pgpool/pgpool.ts'
import { runSoak } from './run-soak.ts'
import { startTlsPostgres } from './tls-postgres.ts'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    runs: { type: 'string', default: '1' },
    driver: { type: 'string', multiple: true },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    pool: { type: 'string', default: '4' },
    pgbouncer: { type: 'boolean', default: false },
    tls: { type: 'boolean', default: false },
    pgpool: { type: 'boolean', default: false },
  },
})
const drivers = (values.driver ?? ['postgres.js', 'pg']) as DriverName[]
const seconds = Number(values.seconds)
const runs = Number(values.runs)

if ([values.tls, values.pgbouncer, values.pgpool].filter(Boolean).length > 1)
  throw new Error('--tls, --pgbouncer and --pgpool: one at a time')
const [pg, tp] = await Promise.all([values.tls ? startTlsPostgres() : startPostgres(), startToxiproxy()])
let cluster: StartedCluster | undefined
let pgpool: StartedPgpool | undefined
let failed = 0
let bouncer: StartedPgBouncer | undefined
try {
  const adminUrl = await createDatabase(pg.url, 'pipeflush_soak')
  if (values.pgbouncer) {
    const binary = findPgBouncer()
    if (binary === undefined)
      throw new Error('--pgbouncer: no pgbouncer binary (apt-get install pgbouncer, or PGBOUNCER=)')
    bouncer = await startPgBouncer(binary, adminUrl, 'pipeflush_soak')
  }
  let services = {
    adminUrl,
    postgresHost: bouncer === undefined ? pg.host : '127.0.0.1',
    postgresPort: bouncer === undefined ? pg.port : bouncer.port,
    toxiproxyUrl: tp.apiUrl,
  }
  if (values.pgpool) {
    const binary = findPgpool()
    if (binary === undefined)
      throw new Error('--pgpool: no pgpool binary (apt-get install pgpool2, or PGPOOL=)')
    cluster = await startCluster()
    const primaryDb = await createDatabase(cluster.primary.url, 'pipeflush_soak')
    await cluster.caughtUp()
    pgpool = await startPgpool(binary, cluster, { load_balance_mode: 'off' })
    services = {
      adminUrl: primaryDb,
      postgresHost: '127.0.0.1',
      postgresPort: pgpool.port,
      toxiproxyUrl: tp.apiUrl,
    }
  }
  console.log(
    `PostgreSQL ${pg.version} (${pg.provider}), toxiproxy ${tp.version} (${tp.provider})` +
      (bouncer === undefined ? '' : `, PgBouncer ${bouncer.version} (transaction pooling) behind the proxy`) +
      (pgpool === undefined ? '' : `, Pgpool-II ${pgpool.version} (primary and standby) behind the proxy`) +
      (values.tls ? ', over TLS' : ''),
  )
  for (let run = 1; run <= runs; run++) {
    for (const driver of drivers) {
      const seed =
        values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed) + run - 1
      const r = await runSoak(services, {
        driver,
        seconds,
        seed,
        concurrency: Number(values.concurrency),
        pool: Number(values.pool),
        tls: values.tls,
      })
      const res = r.result
      const crashed = r.exitCode !== 0 && res === undefined
      const bad = crashed || r.stderr !== '' || (res?.problems.length ?? 1) > 0
      if (bad) failed++
      console.log(
        `\n${driver} run ${run}/${runs} (seed ${seed}, ${Math.round(r.ms / 1000)} s): ${bad ? 'FAIL' : 'ok'}` +
          (crashed ? ` - the process crashed (exit ${r.exitCode}, signal ${r.signal})` : ''),
      )
      if (res !== undefined) {
        console.log(
          `  ${res.units} units of work, ${res.flushes} flushes (${JSON.stringify(res.outcomes)}), modes ${JSON.stringify(res.modes)}, ${res.copies} with COPY`,
        )
        console.log(`  reads: ${JSON.stringify(res.reads)}`)
        console.log(
          `  committed ${res.committed}; unknown outcomes resolved by the flush log: ${res.resolvedDuring} during the chaos, ${res.resolvedAfter} after`,
        )
        console.log(
          `  slowest flush or read: ${res.slowestMs} ms; faults: ${JSON.stringify(res.chaos.faults)}, toxiproxy API errors ${res.chaos.apiErrors}`,
        )
        for (const [code, message] of Object.entries(res.messages))
          console.log(`  first ${code}: ${message.slice(0, 300).replaceAll('\n', ' / ')}`)
        console.log(`  second by second (flushes ok/failed reads ok/failed): ${res.timeline.join(', ')}`)
        console.log(
          '  checked: no crash, no unhandled rejection; every flush and read settled within flushTimeoutMs + 1 s; ' +
            'every read answered the rows it asked for (the counter and its notes, the account by tag); ' +
            'every unit reported committed is in the database with all its rows (nothing lost, nothing partial); ' +
            'nothing else is (nothing phantom); every unknown outcome resolved; each counter moved once per committed unit; the pool worked again once the chaos stopped',
        )
        for (const p of res.problems) console.log(`  PROBLEM: ${p}`)
      }
      if (r.stderr !== '') console.log(`  stderr:\n${r.stderr.slice(0, 60000)}`)
    }
  }
} finally {
  await pgpool?.stop()
  await cluster?.stop()
  await bouncer?.stop()
  await tp.stop()
  await pg.stop()
  await cleanupAll()
}
console.log(failed === 0 ? '\nsoak: every run passed' : `\nsoak: ${failed} run(s) failed`)
process.exitCode = failed === 0 ? 0 : 1
