import { errors } from '../../errors.ts'
import type { TableModel } from '../../model/model.ts'
import { describeKeyValue } from '../../values/location.ts'
import { type StatementDraft, serverKeyed, someKeyKnown } from '../draft.ts'
import { type KeyId, keyComparator, keyOrder, keyText, sameKey } from '../order/row-order.ts'
import type { StatementKind } from '../types.ts'

function twiceError(table: TableModel, key: unknown, previous: StatementKind, kind: StatementKind) {
  if (previous === 'insert' && kind === 'insert')
    return errors.duplicateNewKey(table.key, describeKeyValue(key), key)
  return errors.invalidChange(
    table.key,
    `the row (${describeKeyValue(key)}) is written twice in one flush (${previous}, then ${kind}): an upsert of a row the unit of work also changes, removes or creates, or one change set's two changes of it.`,
    { keys: [key] },
  )
}

/**
 * The rows of a table written by one plain statement whose every key is known: their key order
 * (`draft.order`, which the statement is sent in), neighbours compared: no lookup per row. False when
 * the comparator ties two different keys, or a key is a slot (then the caller looks rows up instead).
 */
function checkSortedDraft(draft: StatementDraft): boolean {
  const ids = draft.keyIds
  for (let r = 0; r < ids.length; r++) if (ids[r] === undefined) return false
  const known = ids as readonly KeyId[]
  const order = keyOrder(draft.table, known)
  const compare = keyComparator(draft.table)
  // Rows already in key order (ids taken in order) cost one comparison each.
  for (let i = 1; i < known.length; i++) {
    const a = order ? order[i - 1]! : i - 1
    const b = order ? order[i]! : i
    if (compare(known[a]!, known[b]!) !== 0) continue
    if (!sameKey(known[a]!, known[b]!)) return false
    throw twiceError(draft.table, draft.keys[b], draft.kind, draft.kind)
  }
  draft.order = order
  return true
}

/** The rows of a table written by several statements: each known key looked up in a map, in kind order. */
function checkByLookup(drafts: readonly StatementDraft[]): void {
  const seen = new Map<string, StatementKind>()
  for (const draft of drafts) {
    for (let r = 0; r < draft.keyIds.length; r++) {
      const id = draft.keyIds[r]
      if (id === undefined) continue // an id not assigned yet: another than every key given
      const text = keyText(id)
      const previous = seen.get(text)
      if (previous === undefined) seen.set(text, draft.kind)
      // An insert and a delete of one key is the unit of work's business (a replaced row).
      else if (!(previous === 'insert' && draft.kind === 'delete'))
        throw twiceError(draft.table, draft.keys[r], previous, draft.kind)
    }
  }
}

/**
 * Rejects a plan that writes one row twice: two new rows sharing a key (`DUPLICATE_KEY`), a row
 * inserted then updated, updated or deleted twice (`INVALID_STATE`). An insert and a delete of one key
 * pass (the unit of work replaces a removed row that way); rows whose key the server fills, and ids not
 * assigned yet, are not compared (whether an id collides with a key given is checked once the ids are
 * known: see `completePlan`). A table written by one plain statement whose keys are all known (the
 * common case, and every large flush of rows given their keys) is checked by sorting its rows by key,
 * which the statement needs anyway: the order is kept in `draft.order`.
 *
 * Found before sending, such a row is a coded error naming it, not a failure in the middle of a flush.
 */
export function checkDistinctRows(drafts: readonly StatementDraft[]): void {
  // The usual flush writes each table by one statement: each is checked alone, no map of tables made.
  if (drafts.length <= FEW_DRAFTS && tablesOnce(drafts)) {
    for (const draft of drafts) if (!serverKeyed(draft)) checkAlone(draft)
    return
  }
  const byTable = new Map<TableModel, StatementDraft[]>()
  for (const draft of drafts) {
    if (serverKeyed(draft)) continue // keys not known yet: the server gives each row its own
    const list = byTable.get(draft.table)
    if (list) list.push(draft)
    else byTable.set(draft.table, [draft])
  }
  for (const list of byTable.values()) {
    if (list.length === 1) checkAlone(list[0]!)
    else checkByLookup(list)
  }
}

/** Up to this many statements, {@link checkDistinctRows} looks for a table written twice by comparing them. */
const FEW_DRAFTS = 16

/** Whether no two of `drafts` write one table. */
function tablesOnce(drafts: readonly StatementDraft[]): boolean {
  for (let i = 1; i < drafts.length; i++)
    for (let j = 0; j < i; j++) if (drafts[i]!.table === drafts[j]!.table) return false
  return true
}

/** {@link checkDistinctRows} of the one statement writing its table. */
function checkAlone(draft: StatementDraft): void {
  // One row, or rows whose keys are all ids not assigned yet: nothing to compare.
  if (draft.keyIds.length < 2 || !someKeyKnown(draft)) return
  // Upsert rows are sent in conflict-column order, not key order: they are looked up.
  if (!(draft.upsert === undefined && checkSortedDraft(draft))) checkByLookup([draft])
}
