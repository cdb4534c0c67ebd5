// npm run example:bank-transfer -- --latency 2 [--modes burst,off] [--transfers 60] [--pool 10]
// The libpq pipeline-mode article's transfer (two account updates) plus a ledger row, with a version
// column: single transfers with their flush reports, a stale transfer failing cleanly, then many
// concurrent transfers (without and with retries) checked against the books. Once per pipeline mode.

import { formatTable, parseExampleArgs, startExampleDatabase } from '@pipeflush/example-support'
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
const db = await startExampleDatabase({ name: 'bank', latencyMs: args.latencyMs })
const summary: (string | number)[][] = []
try {
  console.log(db.description)
  const admin = db.connect(1)
  await createSchema(admin.sql)
  for (const mode of args.modes) {
    await resetData(admin.sql)
    const { sql } = db.connect(pool)
    const factory = await createEntityManagerFactory<DB>({ sql, pipeline: mode, versionColumn: 'version' })
    console.log(`\n=== pipeline ${mode}, pool of ${pool} ===`)
    console.log(
      `open 10 accounts with 1000.00 each    ${describeFlush(await openAccounts(factory, '1000.00'))}`,
    )
    for (const [i, t] of [
      { from: '42', to: '314', amount: '100.00' },
      { from: '314', to: '42', amount: '25.50' },
      { from: '1000', to: '42', amount: '7.25' },
      { from: '42', to: '1001', amount: '5000.00' },
    ].entries()) {
      const o = await transfer(factory, t)
      const what = `transfer ${i + 1}: ${t.amount.padStart(7)} ${t.from.padStart(4)} -> ${t.to.padEnd(4)}`
      console.log(`${what}  ${o.ok ? describeFlush(o.report) : `refused: ${o.code}: ${o.message}`}`)
    }
    const stale = await staleTransfer(factory)
    console.log(
      `stale transfer 42 -> 314: read, then 42 -> 1000 committed (${stale.other.ok ? 'ok' : stale.other.code}), then its flush:`,
    )
    console.log(`    ${stale.stale.code}${'message' in stale.stale ? `: ${stale.stale.message}` : ''}`)
    const r = stale.retried
    console.log(
      `    run again with retries: ${r.ok ? `committed after ${r.attempts} attempt(s), ${describeFlush(r.report)}` : r.code}`,
    )
    for (const retries of [0, 10]) {
      const run = await concurrentTransfers(factory, count, { retries, backoffMs: 10 })
      console.log(formatRun(run, retries, pool))
      summary.push(summaryRow(mode, retries, run))
    }
  }
  console.log(`\n=== ${count} concurrent transfers on a pool of ${pool}, ${args.latencyMs} ms latency ===`)
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
