import type { ExamplePool } from '@pipeflush/example-support'
import type pg from 'pg'
import type postgres from 'postgres'
import type { Reading } from './readings.ts'

/** The upsert, as node-postgres's named statement (postgres.js writes it as a tagged template). */
const UPSERT = `insert into reading (device, recorded_at, measure) values ($1, $2, $3)
  on conflict (device, recorded_at) do update set measure = excluded.measure`

/**
 * The article's baseline without pipelining: the prepared upsert run row by row in a transaction,
 * each awaited (BEGIN, one round trip per row, COMMIT), on the pool's own driver. Only sensible for
 * small batches.
 *
 * @example
 * const { count } = await pool.counter.measure(() => ingestRowByRow(pool, readings))
 * count.roundTrips // about readings.length + 2
 */
export async function ingestRowByRow(
  pool: Pick<ExamplePool, 'driver' | 'client'>,
  readings: readonly Reading[],
): Promise<{ durationMs: number }> {
  const started = performance.now()
  if (pool.driver === 'postgres.js') await viaPostgresJs(pool.client as postgres.Sql, readings)
  else await viaPg(pool.client as pg.Pool, readings)
  return { durationMs: performance.now() - started }
}

/** postgres.js: `sql.begin`, one awaited tagged query per row (prepared by postgres.js). */
async function viaPostgresJs(sql: postgres.Sql, readings: readonly Reading[]): Promise<void> {
  await sql.begin(async (tx) => {
    for (const r of readings) {
      await tx`insert into reading (device, recorded_at, measure) values (${r.device}, ${r.recorded_at}, ${r.measure})
        on conflict (device, recorded_at) do update set measure = excluded.measure`
    }
  })
}

/** node-postgres: a checked-out client, BEGIN, one awaited named (prepared) query per row, COMMIT. */
async function viaPg(pool: pg.Pool, readings: readonly Reading[]): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    for (const r of readings) {
      await client.query({
        name: 'reading_upsert',
        text: UPSERT,
        values: [r.device, r.recorded_at, r.measure],
      })
    }
    await client.query('commit')
  } catch (e) {
    await client.query('rollback').catch(() => {})
    throw e
  } finally {
    client.release()
  }
}
