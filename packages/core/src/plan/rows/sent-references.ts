import type { EntityState } from '../../track/entity-state.ts'

/**
 * The upserted entities a new row's snapshot referenced when it was sent, by snapshot and column.
 * Such a reference goes as a lookup by the upsert's conflict values (`ConflictRef`), its key unknown
 * until the server answers: the snapshot holds undefined there, and once the flush committed it takes
 * that entity's key, not the key of whatever the column holds by then (the application may have
 * assigned another entity while the flush was in flight: that change is still to write).
 */
const references = new WeakMap<object, Map<string, EntityState>>()

/**
 * Notes that `snapshot`'s `column` was sent as a reference to `target`.
 *
 * @example
 * noteSentReference(snapshots[r], 'author_id', slot.state)
 */
export function noteSentReference(snapshot: object, column: string, target: EntityState): void {
  let byColumn = references.get(snapshot)
  if (byColumn === undefined) {
    byColumn = new Map()
    references.set(snapshot, byColumn)
  }
  byColumn.set(column, target)
}

/**
 * The entity `snapshot`'s `column` was sent as a reference to, if it was (see {@link noteSentReference}).
 *
 * @example
 * const target = sentReference(snapshot, 'author_id') // the upserted author, or undefined
 */
export function sentReference(snapshot: object, column: string): EntityState | undefined {
  return references.get(snapshot)?.get(column)
}
