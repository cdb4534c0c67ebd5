import type { CatalogForeignKey, CatalogPartition } from './catalog-rows.ts'

/** What makes two foreign keys the same reference: columns, target table and target columns. */
function referenceOf(fk: CatalogForeignKey): string {
  return JSON.stringify([fk.columns, fk.targetSchema, fk.targetName, fk.targetColumns])
}

/**
 * The ON DELETE action of keys that differ between partitions: the one that orders deletes the most
 * (cascade, then restrict, then no action), so that no partition's rows are deleted out of order.
 */
function strictestOnDelete(actions: readonly string[]): string {
  if (actions.every((a) => a === actions[0])) return actions[0] ?? 'a'
  for (const action of ['c', 'r', 'a']) if (actions.includes(action)) return action
  return actions[0] ?? 'a'
}

/**
 * The foreign keys a partitioned table has through its leaf partitions only (declared on each
 * partition, not on the table, as before PostgreSQL 12 and in dumps of such schemas): each reference
 * (same columns, target and target columns) that every leaf partition declares and the table itself
 * does not becomes the table's, for ordering inserts, updates and deletes of its rows. Named after
 * the first partition's key; deferred only when deferred on every partition; with ON DELETE the
 * partitions' own, or when they differ the one that orders deletes the most. A key that some
 * partitions lack is left out (rows routed to the others need no order), as is every key of a table
 * without partitions.
 */
export function partitionForeignKeys(
  own: readonly CatalogForeignKey[],
  partitions: readonly CatalogPartition[],
): CatalogForeignKey[] {
  if (partitions.length === 0) return []
  const declared = new Set(own.map(referenceOf))
  // Per reference, its key on each partition (a partition may list one reference more than once: the
  // copies PostgreSQL makes for each partition of a partitioned target).
  const byReference = new Map<string, CatalogForeignKey[]>()
  partitions.forEach((partition, p) => {
    const seen = new Set<string>()
    for (const fk of partition.foreignKeys) {
      const reference = referenceOf(fk)
      if (declared.has(reference) || seen.has(reference)) continue
      seen.add(reference)
      const keys = byReference.get(reference)
      if (keys === undefined) {
        if (p === 0) byReference.set(reference, [fk])
        continue
      }
      if (keys.length === p) keys.push(fk)
    }
  })
  const out: CatalogForeignKey[] = []
  for (const keys of byReference.values()) {
    if (keys.length !== partitions.length) continue
    const first = keys[0]!
    out.push({
      ...first,
      deferrable: keys.every((k) => k.deferrable),
      initiallyDeferred: keys.every((k) => k.initiallyDeferred),
      onDelete: strictestOnDelete(keys.map((k) => k.onDelete)),
    })
  }
  return out
}
