import type { FlushReport, PipelineMode } from '@pipeflush/core'
import type { UnitOfWorkFactory } from '@pipeflush/example-support'
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
  factory: UnitOfWorkFactory<DB>,
  readings: readonly Reading[],
  options: { readonly pipeline?: PipelineMode } = {},
): Promise<FlushReport> {
  const { report } = await factory.run((em) => {
    for (const r of readings) em.upsert('reading', r, { conflict: ['device', 'recorded_at'] })
  }, options)
  return report
}
