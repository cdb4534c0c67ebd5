import type { FlushReport, PipelineMode } from '@pipeflush/core'
import type { EntityManagerFactory } from '@pipeflush/kysely'
import type postgres from 'postgres'
import type { Reading } from './readings.ts'
import type { DB } from './schema.ts'

/**
 * Upserts a batch of readings through one unit of work: every `em.upsert` is collected, and the flush
 * sends them as one batched statement (`insert into reading select ... from unnest(...) on conflict
 * (device, recorded_at) do update set measure = excluded.measure`), in one transaction.
 *
 * @example
 * const report = await ingest(factory, readings)
 */
export async function ingest(
  factory: EntityManagerFactory<DB>,
  readings: readonly Reading[],
  options: { readonly pipeline?: PipelineMode } = {},
): Promise<FlushReport> {
  const { report } = await factory.run((em) => {
    for (const r of readings) em.upsert('reading', r, { conflict: ['device', 'recorded_at'] })
  }, options)
  return report
}

/**
 * The article's baseline without pipelining: the prepared upsert run row by row in a transaction,
 * each awaited (BEGIN, one round trip per row, COMMIT). Only sensible for small batches.
 */
export async function ingestRowByRow(
  sql: postgres.Sql,
  readings: readonly Reading[],
): Promise<{ durationMs: number }> {
  const started = performance.now()
  await sql.begin(async (tx) => {
    for (const r of readings) {
      await tx`insert into reading (device, recorded_at, measure) values (${r.device}, ${r.recorded_at}, ${r.measure})
        on conflict (device, recorded_at) do update set measure = excluded.measure`
    }
  })
  return { durationMs: performance.now() - started }
}
