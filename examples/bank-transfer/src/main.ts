// npm run example:bank-transfer -- --latency 2 [--driver pg|postgres.js] [--modes burst,off] [--transfers 60] [--pool 10]
// The libpq pipeline-mode article's transfer (two account updates) plus a ledger row, with a version
// column: single transfers with their flush reports, a stale transfer failing cleanly, then many
// concurrent transfers (without and with retries) checked against the books. Once per pipeline mode,
// on a pg.Pool with pipeline: true and its Kysely (or a postgres.js client with --driver postgres.js).
// The reports of flushes run one at a time are checked against the pool's socket counter.

import type { FlushReport } from '@pipeflush/core'
import {
  appKysely,
  describeSocketCheck,
  FlushMeter,
  formatTable,
  parseExampleArgs,
  startExampleDatabase,
} from '@pipeflush/example-support'
import { createEntityManagerFactory, describeFlush } from '@pipeflush/kysely'
import { amount } from './money.ts'
import { type ConcurrentRun, concurrentTransfers, openAccounts, staleTransfer } from './scenario.ts'
import { createSchema, type DB, resetData } from './schema.ts'
import { transfer } from './transfer.ts'

const args = parseExampleArgs(process.argv.slice(2), {
  transfers: { type: 'string', default: '60' },
  pool: { type: 'string', default: '10' },
})
const count = Number(args.values['transfers'])
const pool = Number(args.values['pool'])
const db = await startExampleDatabase({ name: 'bank', latencyMs: args.latencyMs, driver: args.driver })
const summary: (string | number)[][] = []
let mismatches = 0
try {
  console.log(db.description)
  const admin = db.connect(1) // stands for the migration tool: creates and empties the tables
  await createSchema(admin.query)
  for (const mode of args.modes) {
    await resetData(admin.query)
    const app = db.connect(pool)
    const factory = new FlushMeter(
      await createEntityManagerFactory<DB>({
        client: app.client,
        db: appKysely<DB>(app),
        pipeline: mode,
        versionColumn: 'version',
      }),
      app.counter,
    )
    /** A report and how it compares with the socket. */
    const described = (report: FlushReport) =>
      `${describeFlush(report)}; ${describeSocketCheck(factory.of(report))}`
    console.log(`\n=== pipeline ${mode}, ${args.driver} pool of ${pool} ===`)
    console.log(`open 10 accounts with 1000.00 each    ${described(await openAccounts(factory, '1000.00'))}`)
    for (const [i, t] of [
      { from: '42', to: '314', amount: '100.00' },
      { from: '314', to: '42', amount: '25.50' },
      { from: '1000', to: '42', amount: '7.25' },
      { from: '42', to: '1001', amount: '5000.00' },
    ].entries()) {
      const o = await transfer(factory, t)
      const what = `transfer ${i + 1}: ${t.amount.padStart(7)} ${t.from.padStart(4)} -> ${t.to.padEnd(4)}`
      console.log(`${what}  ${o.ok ? described(o.report) : `refused: ${o.code}: ${o.message}`}`)
    }
    const stale = await staleTransfer(factory)
    console.log(
      `stale transfer 42 -> 314: read, then 42 -> 1000 committed (${stale.other.ok ? 'ok' : stale.other.code}), then its flush:`,
    )
    console.log(`    ${stale.stale.code}${'message' in stale.stale ? `: ${stale.stale.message}` : ''}`)
    const r = stale.retried
    console.log(
      `    run again with retries: ${r.ok ? `committed after ${r.attempts} attempt(s), ${described(r.report)}` : r.code}`,
    )
    for (const retries of [0, 10]) {
      const run = await concurrentTransfers(factory, count, { retries, backoffMs: 10 })
      console.log(formatRun(run, retries, pool))
      summary.push(summaryRow(mode, retries, run))
    }
    console.log(factory.summary())
    mismatches += factory.mismatches.length
  }
  console.log(
    `\n=== ${count} concurrent transfers on a ${args.driver} pool of ${pool}, ${args.latencyMs} ms latency ===`,
  )
  const header = [
    'mode',
    'retries',
    'committed',
    'stale',
    'other',
    'total kept',
    'ledger ok',
    'flush rt',
    'flush ms',
    'all ms',
  ]
  console.log(formatTable(header, summary))
} finally {
  await db.stop()
}
if (mismatches > 0) {
  console.error(`\n!!! ${mismatches} flush report(s) differed from the socket count !!!`)
  process.exitCode = 1
}

function formatRun(run: ConcurrentRun, retries: number, poolSize: number): string {
  const failed = Object.entries(run.failed).map(([code, n]) => `${n} ${code}`)
  return [
    `${run.attempted} concurrent transfers on a pool of ${poolSize}, retries ${retries}: ${run.succeeded} committed` +
      `${run.retried ? ` (${run.retried} after a retry)` : ''}, ${failed.length ? failed.join(', ') : 'none failed'}; ${run.ms.toFixed(0)} ms`,
    `    total balance ${amount(run.totalBefore)} -> ${amount(run.totalAfter)} (${run.totalBefore === run.totalAfter ? 'unchanged' : 'CHANGED'}),` +
      ` ledger rows added ${run.ledgerRowsAdded} (${run.ledgerRowsAdded === run.succeeded ? '= committed' : 'MISMATCH'}),` +
      ` committed + failed = ${run.succeeded + Object.values(run.failed).reduce((a, b) => a + b, 0)} of ${run.attempted}`,
  ].join('\n')
}

function summaryRow(mode: string, retries: number, run: ConcurrentRun): (string | number)[] {
  const stale = run.failed['OPTIMISTIC_LOCK'] ?? 0
  const other = Object.values(run.failed).reduce((a, b) => a + b, 0) - stale
  return [
    mode,
    retries,
    run.succeeded,
    stale,
    other,
    run.totalBefore === run.totalAfter ? 'yes' : 'NO',
    run.ledgerRowsAdded === run.succeeded ? 'yes' : 'NO',
    run.medianFlush.roundTrips,
    run.medianFlush.ms.toFixed(1),
    run.ms.toFixed(0),
  ]
}
