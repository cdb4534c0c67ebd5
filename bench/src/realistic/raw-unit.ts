import type pg from 'pg'
import type postgres from 'postgres'
import { openDriver } from '../series/driver-client.ts'
import { type RawStatement, readStatements, writeStatements } from './raw-statements.ts'
import type { RealisticSeries, UnitRunner } from './runner.ts'

/** Client-side ids of the raw series: far above what the seeded sequences hand out. */
let nextId = 1_000_000_000_000
const takeId = () => nextId++

type Params = postgres.ParameterOrJSON<never>[]

/** The seed's pattern (see `report/seed.ts`): `sql.begin`, every statement in one `Promise.all` (prepared, as tagged templates are). */
async function flushPostgresJs(sql: postgres.Sql, statements: readonly RawStatement[]): Promise<void> {
  await sql.begin(async (tx) => {
    await Promise.all(statements.map((s) => tx.unsafe(s.text, s.params as Params, { prepare: true })))
  })
}

/** node-postgres with `pipeline: true`: BEGIN, every statement and COMMIT in one `Promise.all`. */
async function flushPg(pool: pg.Pool, statements: readonly RawStatement[]): Promise<void> {
  const client = await pool.connect()
  try {
    const results = await Promise.all([
      client.query('begin'),
      ...statements.map((s) => client.query(s.text, [...s.params])),
      client.query('commit'),
    ])
    const commit = results[results.length - 1]
    if (commit?.command !== 'COMMIT') throw new Error(`pg-pipeline: COMMIT answered ${commit?.command}`)
  } finally {
    client.release()
  }
}

/** Hand-written SQL on postgres.js (`sql.begin` + `Promise.all`) or on a pipelining `pg.Pool`. */
function rawRealistic(driver: 'postgres.js' | 'pg'): RealisticSeries {
  return {
    name: driver === 'pg' ? 'pg-pipeline' : 'raw-promise-all',
    driver,
    id: driver === 'pg' ? 'pg-pipeline' : 'raw-promise-all',
    description:
      driver === 'pg'
        ? 'node-postgres pipeline: true, hand-written SQL (one statement per row, client-side ids): BEGIN + statements + COMMIT in one Promise.all'
        : 'postgres.js sql.begin, hand-written SQL (one statement per row, client-side ids) in one Promise.all (the seed pattern)',
    unavailableReason: async () => undefined,
    async open(target, pool): Promise<UnitRunner> {
      const c = await openDriver(driver, target.url, pool, { connect: false })
      return {
        counter: c.counter,
        async prepare(unit) {
          for (const read of readStatements(unit)) {
            if (c.driver === 'pg') await c.client.query(read.text, read.params)
            else await c.client.unsafe(read.text, read.params, { prepare: true })
          }
          const statements = writeStatements(unit, takeId)
          return async () => {
            if (c.driver === 'pg') await flushPg(c.client, statements)
            else await flushPostgresJs(c.client, statements)
            return undefined
          }
        },
        close: c.close,
      }
    },
  }
}

/** The raw drivers on the realistic workload. */
export const rawRealistic2: readonly RealisticSeries[] = [rawRealistic('postgres.js'), rawRealistic('pg')]
