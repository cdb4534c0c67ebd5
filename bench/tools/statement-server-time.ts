// The server's time for pipeflush's statements: an amendment of the realistic workload's shop (a
// purchase updated, two of its lines updated, one deleted, a line and a tag added), planned by
// pipeflush, then each statement run 30 times under EXPLAIN (ANALYZE) in a rolled-back transaction on a
// direct connection; beside them, the one-row statements an application would write by hand. Prints
// the median planning and execution times the server reports, in ms.
//   npx node --conditions=@pipeflush/source bench/tools/statement-server-time.ts
import { EntityManager } from '@pipeflush/core'
import { startBenchEnv } from '../src/env/services.ts'
import { toolPool } from '../src/series/tool-pool.ts'

const RUNS = 30
const env = await startBenchEnv(() => {})
const pool = toolPool({ connectionString: env.target.url, max: 2 })
try {
  await env.resetShop()
  const em = (await EntityManager.connect(pool)).fork()
  const [purchase] = await em.find('purchase', { id: [5] })
  const lines = await em.find('purchase_line', { purchase_id: [5] })
  if (purchase === undefined || lines.length < 3) throw new Error('the seeded purchase 5 has 3 lines')
  purchase['status'] = 'amended'
  purchase['total'] = '99.00'
  lines[0]!['qty'] = 7
  lines[1]!['qty'] = 8
  em.remove(lines[2]!)
  em.create('purchase_line', { purchase_id: purchase, product_id: 3, qty: 1, price: '1.00' })
  em.create('purchase_tag', { purchase_id: purchase, tag_id: 2 })
  const client = await pool.connect()
  const explain = async (text: string, params: readonly unknown[]) => {
    const planning: number[] = []
    const execution: number[] = []
    for (let i = 0; i < RUNS; i++) {
      await client.query('begin')
      const r = await client.query(`explain (analyze, summary, format json) ${text}`, [...params])
      await client.query('rollback')
      const summary = r.rows[0]['QUERY PLAN'][0] as Record<string, number>
      planning.push(summary['Planning Time']!)
      execution.push(summary['Execution Time']!)
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[RUNS >> 1]!.toFixed(3)
    return `planning ${median(planning)}  execution ${median(execution)}`
  }
  try {
    for (const statement of em.plan().waves.flat())
      console.log(
        `pipeflush ${`${statement.kind} ${statement.table} (${statement.rowCount} rows)`.padEnd(28)} ${await explain(statement.sql, statement.rowCount === 1 ? statement.params.map((p) => p[0]) : statement.params)}`,
      )
    const byHand: [string, string, unknown[]][] = [
      [
        'update purchase',
        'update purchase set status = $1, total = $2 where id = $3',
        ['amended', '99.00', 5],
      ],
      ['update purchase_line', 'update purchase_line set qty = $1 where id = $2', [7, lines[0]!['id']]],
      ['delete purchase_line', 'delete from purchase_line where id = $1', [lines[2]!['id']]],
      [
        'insert purchase_line',
        'insert into purchase_line (id, purchase_id, product_id, qty, price) values ($1, $2, $3, $4, $5)',
        [1e12, 5, 3, 1, '1.00'],
      ],
      [
        'insert purchase_tag',
        'insert into purchase_tag (id, purchase_id, tag_id) values ($1, $2, $3)',
        [1e12, 5, 2],
      ],
    ]
    for (const [name, text, params] of byHand)
      console.log(`by hand   ${`${name} (1 row)`.padEnd(28)} ${await explain(text, params)}`)
  } finally {
    client.release()
  }
} finally {
  await pool.end()
  await env.stop()
}
