import type postgres from 'postgres'
import { nextValues, type Work } from '../workload.ts'
import { openPostgresJs, postgresJsQuery } from './postgres-js-client.ts'
import { ALL_SCENARIOS, type Series, type SeriesClient, type SeriesName, type Target } from './types.ts'

type Sql = postgres.Sql | postgres.TransactionSql

/**
 * The insert of one table: `values (...)` for one row, as in the seed benchmark; one
 * `unnest($1::text[])` statement for more (batched per table, the seed post's assumption).
 */
export function rawInsert(
  sql: Sql,
  table: string,
  values: readonly string[],
): postgres.PendingQuery<postgres.Row[]> {
  return values.length === 1
    ? sql`insert into ${sql(table)} (v) values (${values[0] ?? ''})`
    : sql`insert into ${sql(table)} (v) select unnest(${values as string[]}::text[])`
}

/** The inserts of `work`, one per table, not yet awaited (postgres.js queries are lazy). */
function inserts(sql: Sql, work: Work): postgres.PendingQuery<postgres.Row[]>[] {
  return work.tables.map((t) => rawInsert(sql, t, nextValues(work.rowsPerTable)))
}

type Send = (sql: postgres.Sql, work: Work) => Promise<unknown>

const sends: Record<'raw-sequential' | 'raw-string-array' | 'raw-promise-all', [string, Send]> = {
  'raw-sequential': [
    'postgres.js sql.begin, each insert awaited (seed case 1)',
    (sql, work) =>
      sql.begin(async (tx) => {
        for (const q of inserts(tx, work)) await q
      }),
  ],
  'raw-string-array': [
    'postgres.js sql.begin returning the array of inserts (seed case 2)',
    (sql, work) => sql.begin((tx) => inserts(tx, work)),
  ],
  'raw-promise-all': [
    'postgres.js sql.begin, inserts in one Promise.all (seed case 3)',
    (sql, work) =>
      sql.begin(async (tx) => {
        await Promise.all(inserts(tx, work))
      }),
  ],
}

function rawSeries(name: keyof typeof sends): Series {
  const [description, send] = sends[name]
  return {
    name: name satisfies SeriesName,
    driver: 'postgres.js',
    id: name,
    description,
    scenarios: ALL_SCENARIOS,
    unavailableReason: async () => undefined,
    async open(target: Target, { pool }): Promise<SeriesClient> {
      const { sql, counter } = await openPostgresJs(target.url, pool)
      return {
        counter,
        flush: async (work) => {
          await send(sql, work)
        },
        query: (text) => postgresJsQuery(sql, text),
        close: () => sql.end({ timeout: 5 }),
      }
    },
  }
}

/** The three postgres.js cases of the seed benchmark. */
export const rawSeries3: readonly Series[] = [
  rawSeries('raw-sequential'),
  rawSeries('raw-string-array'),
  rawSeries('raw-promise-all'),
]
