import type pg from 'pg'
import { nextValues, type Work } from '../workload.ts'
import { openPgPool, pgQuery } from './pg-client.ts'
import { ALL_SCENARIOS, type Series, type SeriesClient } from './types.ts'

/** The insert of one table as node-postgres query config (same SQL shapes as the raw series). */
function insertQuery(table: string, values: readonly string[]): pg.QueryConfig {
  return values.length === 1
    ? { text: `insert into ${table} (v) values ($1)`, values: [values[0]] }
    : { text: `insert into ${table} (v) select unnest($1::text[])`, values: [values] }
}

/**
 * Sends BEGIN, every insert and COMMIT in one `Promise.all` on a checked-out client; with
 * `pipeline: true` node-postgres writes them all without waiting. Fails when COMMIT answered
 * ROLLBACK (a statement failed).
 */
async function flushPipelined(client: pg.PoolClient, work: Work): Promise<void> {
  const results = await Promise.all([
    client.query('begin'),
    ...work.tables.map((t) => client.query(insertQuery(t, nextValues(work.rowsPerTable)))),
    client.query('commit'),
  ])
  const commit = results[results.length - 1]
  if (commit?.command !== 'COMMIT') throw new Error(`pg-pipeline: COMMIT answered ${commit?.command}`)
}

/** node-postgres 8.23 with its `pipeline: true` client option. */
export const pgPipelineSeries: Series = {
  name: 'pg-pipeline',
  driver: 'pg',
  id: 'pg-pipeline',
  description: 'node-postgres 8.23 pipeline: true, BEGIN + inserts + COMMIT in one Promise.all',
  scenarios: ALL_SCENARIOS,
  unavailableReason: async () => undefined,
  async open(target, { pool: max }): Promise<SeriesClient> {
    const { pool, counter } = await openPgPool(target.url, max)
    return {
      counter,
      async flush(work) {
        const client = await pool.connect()
        try {
          await flushPipelined(client, work)
        } finally {
          client.release()
        }
      },
      query: (text) => pgQuery(pool, text),
      close: () => pool.end(),
    }
  },
}
