import { quoteIdentifier } from '../../values/identifier.ts'
import type { UpsertSpec } from '../types.ts'

/**
 * The `on conflict` clause of an upsert.
 *
 * @example
 * onConflictSql({ conflict: ['device', 'recorded_at'], update: ['value'] })
 * // ' on conflict ("device", "recorded_at") do update set "value" = excluded."value"'
 */
export function onConflictSql(spec: UpsertSpec): string {
  const target = spec.conflict.map(quoteIdentifier).join(', ')
  if (spec.update.length === 0) return ` on conflict (${target}) do nothing`
  const set = spec.update.map((c) => `${quoteIdentifier(c)} = excluded.${quoteIdentifier(c)}`).join(', ')
  return ` on conflict (${target}) do update set ${set}`
}
