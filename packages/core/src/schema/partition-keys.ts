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
 * The foreign keys a partitioned table has through its leaf partitions only (declared on a
 * partition, not on the table, as before PostgreSQL 12, in dumps of such schemas, or on some leaves
 * only): each reference (same columns, target and target columns) that any leaf partition declares
 * and the table itself does not becomes the table's, for ordering inserts, updates and deletes of
 * its rows. A row may land in any leaf, so a key one leaf enforces orders every row of the table;
 * the order costs nothing where no leaf enforces it. Named after the first declaring partition's
 * key; deferred only when deferred on every partition that declares it; with ON DELETE the
 * partitions' own, or when they differ the one that orders deletes the most. A table without
 * partitions gets none.
 *
 * @example
 * // payment_p2022_01 declares payment_p2022_01_rental_id_fkey, payment_p2022_07 declares nothing:
 * partitionForeignKeys([], payment.partitions) // [{ name: 'payment_p2022_01_rental_id_fkey', ... }]
 */
export function partitionForeignKeys(
  own: readonly CatalogForeignKey[],
  partitions: readonly CatalogPartition[],
): CatalogForeignKey[] {
  const declared = new Set(own.map(referenceOf))
  // Per reference, its key on each partition that declares it (a partition may list one reference
  // more than once: the copies PostgreSQL makes for each partition of a partitioned target).
  const byReference = new Map<string, CatalogForeignKey[]>()
  for (const partition of partitions) {
    const seen = new Set<string>()
    for (const fk of partition.foreignKeys) {
      const reference = referenceOf(fk)
      if (declared.has(reference) || seen.has(reference)) continue
      seen.add(reference)
      const keys = byReference.get(reference)
      if (keys === undefined) byReference.set(reference, [fk])
      else keys.push(fk)
    }
  }
  const out: CatalogForeignKey[] = []
  for (const keys of byReference.values()) {
    const first = keys[0]!
    out.push({
      ...first,
      deferrable: keys.every((k) => k.deferrable),
      initiallyDeferred: keys.every((k) => k.initiallyDeferred),
      onDelete: strictestOnDelete(keys.map((k) => k.onDelete)),
      // Each partition's constraint has its own name, which the server names in a violation.
      aliases: [...new Set(keys.map((k) => k.name))],
    })
  }
  return out
}
