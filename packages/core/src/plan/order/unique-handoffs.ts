import type { ColumnModel, TableModel } from '../../model/model.ts'
import { perTable } from '../../schema/per-table.ts'
import { normalizeKeyValue } from '../../values/index.ts'
import { type InsertInput, Slot, type StatementDraft, type StoredInput } from '../draft.ts'
import { ConflictRef } from '../rows/conflict-ref.ts'
import { acyclic } from './cycles.ts'
import { type Edge, valueAt } from './dependency-graph.ts'
import { assignWaves, groupByWave } from './waves.ts'

/** Keys (as {@link keyColumns} gives them) of constraints `NULLS NOT DISTINCT`: a NULL is a value. */
const nullsEqual = new WeakSet<readonly ColumnModel[]>()

/** The columns of each of `keys`, or none when a name is not a column of `table`. */
function keyColumns(
  table: TableModel,
  keys: readonly { readonly columns: readonly string[]; readonly nullsNotDistinct?: boolean | undefined }[],
): (readonly ColumnModel[])[] {
  const out: (readonly ColumnModel[])[] = []
  for (const key of keys) {
    const columns = key.columns.map((name) => table.columnsByName.get(name))
    if (columns.length === 0 || !columns.every((c) => c !== undefined)) continue
    out.push(columns as ColumnModel[])
    if (key.nullsNotDistinct === true) nullsEqual.add(columns as ColumnModel[])
  }
  return out
}

/** The unique constraints of `table`, as columns. */
const uniqueConstraints = perTable((table: TableModel) => keyColumns(table, table.uniques))

/** The primary key, then the unique constraints of `table`, as columns. */
const allUniqueKeys = perTable((table: TableModel) =>
  keyColumns(table, [{ columns: table.primaryKey }, ...table.uniques]),
)

/** The columns of `table` that are part of one of its unique constraints. */
const uniqueColumns = perTable(
  (table: TableModel): ReadonlySet<string> =>
    new Set(uniqueConstraints(table).flatMap((key) => key.map((c) => c.name))),
)

/**
 * Edges for unique values handed from one row to another in a flush: the statement that frees a value
 * of a unique key (the primary key or a unique constraint) runs before the statement that takes it.
 * A value is freed by a deleted row (the values it held as stored) and by an updated row that changes
 * it (the value it held before); it is taken by a new row (an insert or an upsert) and by an updated
 * row that changes its key to it. So a row removed and another created with its email, a row's
 * email changed and a new row given the old one, or a row taking the email of a row removed in the
 * same flush go in that order, where PostgreSQL checks a unique constraint (unless deferrable) at
 * each row: the insert before the delete failed with a duplicate key.
 *
 * Indexes: inserts from 0, `updates` from `updateOffset`, `deletes` from `deleteOffset`. A value is
 * compared by its key form (`normalizeKeyValue`); a tuple holding a null (never equal to another), an
 * id not assigned yet (a new row's: no stored row holds it), or a value that has no key form is not
 * compared. A reference to an upserted row (its key looked up in the statement, see `conflict-ref.ts`)
 * may be any stored key: a tuple taking one matches every freed tuple equal in its other values, by an
 * edge marked `maybe` (a tag list replaced, a link removed and created again to a tag got by an
 * upsert), which the caller adds last, only where it contradicts no other order. A stored row's values
 * other than its key are known for an entity (its snapshot), not for a change set's row. Rows of one update statement handing values to each other are split into
 * statements of their own first (see {@link splitHandoffs}), which this then orders.
 *
 * @example
 * findHandoffEdges([insertPerson], [], 1, [deletePerson], 1) // [{ from: 1, to: 0 }]: the delete first
 */
export function findHandoffEdges(
  inserts: readonly StatementDraft[],
  updates: readonly StatementDraft[],
  updateOffset: number,
  deletes: readonly StatementDraft[],
  deleteOffset: number,
): HandoffEdge[] {
  if (deletes.length + updates.length === 0) return [] // nothing freed
  // A new entity's key is drawn, made or given; given, it may be one a removed entity of its table
  // held (a row replaced): keys are compared when a change set's rows or upserts are inserted, or
  // rows of a table the flush also deletes from; unique constraints always.
  let byKey = false
  for (let i = 0; i < inserts.length && !byKey; i++) {
    const draft = inserts[i]!
    byKey =
      draft.upsert !== undefined ||
      (draft.rows[0] as InsertInput | undefined)?.owner === undefined ||
      (deletes.some((d) => d.table === draft.table) && givesKeys(draft))
  }
  // Updates that change a unique constraint's column (free a value and take one); most flushes have none.
  const keyUpdates: number[] = []
  // Tables where a value may be freed (made when one is); nothing is handed in a table where none is.
  let freeing: Set<TableModel> | undefined
  for (let u = 0; u < updates.length; u++) {
    const draft = updates[u]!
    if (draft.table.uniques.length === 0) continue
    const unique = uniqueColumns(draft.table)
    if (!draft.columns.some((name) => unique.has(name))) continue
    keyUpdates.push(u)
    freeing ??= new Set()
    freeing.add(draft.table)
  }
  for (let d = 0; d < deletes.length; d++) {
    const table = deletes[d]!.table
    if (!byKey && table.uniques.length === 0) continue
    freeing ??= new Set()
    freeing.add(table)
  }
  if (freeing === undefined) return []
  const freeingTables = freeing
  const taking = (draft: StatementDraft) => freeingTables.has(draft.table)
  if (!inserts.some(taking) && keyUpdates.length === 0) return []
  const uniqueKeys = byKey ? allUniqueKeys : uniqueConstraints
  // Per table, key and tuple: the statements that free it.
  const freed = new Map<string, number[]>()
  const free = (id: string, statement: number) => {
    const at = freed.get(id)
    if (at === undefined) freed.set(id, [statement])
    else if (!at.includes(statement)) at.push(statement)
  }
  // A flush with upserts: a taken tuple may hold a lookup (see `lookupHandoffs`), compared with the freed ones.
  const upserting = inserts.some((draft) => draft.upsert !== undefined)
  const freedTuples: Tuple[] = []
  const lookedUp: Tuple[] = []
  deletes.forEach((draft, d) => {
    uniqueKeys(draft.table).forEach((key, k) => {
      for (let r = 0; r < draft.rows.length; r++) {
        const id = tupleId(draft.table, k, key, (c) => storedValue(draft, r, c))
        if (id === undefined) continue
        free(id, d + deleteOffset)
        if (upserting)
          freedTuples.push([draft.table, k, key, (c) => storedValue(draft, r, c), d + deleteOffset])
      }
    })
  })
  // Each changed row of an update frees its tuple before and takes its tuple after.
  const taken: [string, number][] = []
  for (const u of keyUpdates) {
    const draft = updates[u]!
    eachChange(draft, uniqueKeys, (before, after, r, k, key) => {
      if (before !== undefined) free(before, u + updateOffset)
      if (before !== undefined && upserting)
        freedTuples.push([draft.table, k, key, (c) => storedValue(draft, r, c), u + updateOffset])
      if (after !== undefined) taken.push([after, u + updateOffset])
    })
  }
  if (freed.size === 0) return []
  const edges = new Set<string>()
  const take = (id: string | undefined, statement: number) => {
    if (id === undefined) return
    for (const from of freed.get(id) ?? []) if (from !== statement) edges.add(`${from}>${statement}`)
  }
  inserts.forEach((draft, i) => {
    if (!taking(draft)) return
    uniqueKeys(draft.table).forEach((key, k) => {
      for (let r = 0; r < draft.rows.length; r++) {
        const id = tupleId(draft.table, k, key, (c) => insertedValue(draft, r, c))
        if (id !== undefined) take(id, i)
        else if (upserting && key.some((c) => insertedValue(draft, r, c) instanceof ConflictRef))
          lookedUp.push([draft.table, k, key, (c) => insertedValue(draft, r, c), i])
      }
    })
  })
  for (const [id, statement] of taken) take(id, statement)
  const out = edgesOf(edges, false)
  if (lookedUp.length > 0) out.push(...lookupHandoffs(freedTuples, lookedUp, edges))
  return out
}

/** The edges `from>to` of `ids`, marked `maybe` when they are. */
function edgesOf(ids: ReadonlySet<string>, maybe: boolean): HandoffEdge[] {
  return [...ids].map((id) => {
    const [from, to] = id.split('>')
    return maybe ? { from: Number(from), to: Number(to), maybe } : { from: Number(from), to: Number(to) }
  })
}

/** An edge of {@link findHandoffEdges}: `maybe` when it follows a lookup that may or may not find the freed value. */
export interface HandoffEdge extends Edge {
  readonly maybe?: true
}

/** A tuple of a key: its table, the key's place among the table's keys and its columns, its values, its statement. */
type Tuple = readonly [TableModel, number, readonly ColumnModel[], (column: ColumnModel) => unknown, number]

/**
 * The `maybe` edges of {@link findHandoffEdges}: from each statement freeing a tuple (`freed`) to each
 * statement taking, with lookups, a tuple of the same key whose other values equal it (`lookedUp`),
 * but for the edges already `made`. The freed tuples are indexed by the values a taken tuple gives
 * (its lookups left out), once per table, key and places of lookups: a list replaced with thousands of
 * references to upserted rows is matched in one pass, not each taken tuple with each freed one.
 */
function lookupHandoffs(
  freed: readonly Tuple[],
  lookedUp: readonly Tuple[],
  made: ReadonlySet<string>,
): HandoffEdge[] {
  const edges = new Set<string>()
  // Per table, key and places of lookups: the statements freeing each tuple, by its other values.
  const indexes = new Map<string, Map<string, number[]>>()
  for (const [table, k, key, read, statement] of lookedUp) {
    const lookups = key.map((c) => read(c) instanceof ConflictRef)
    const taken = partsId(table, k, key, read, lookups)
    if (taken === undefined) continue
    const name = `${table.key}\u0000${k}\u0000${lookups.join()}`
    let index = indexes.get(name)
    if (index === undefined) {
      index = new Map()
      indexes.set(name, index)
      for (const [freedTable, freedK, , held, from] of freed) {
        if (freedTable !== table || freedK !== k) continue
        const id = partsId(table, k, key, held, lookups)
        if (id === undefined) continue
        const at = index.get(id)
        if (at === undefined) index.set(id, [from])
        else if (!at.includes(from)) at.push(from)
      }
    }
    for (const from of index.get(taken) ?? []) {
      const edge = `${from}>${statement}`
      if (from !== statement && !made.has(edge)) edges.add(edge)
    }
  }
  return edgesOf(edges, true)
}

/** The tuple id (see {@link tupleId}) of the values `read` gives for `key`, those at `lookups` left out. */
function partsId(
  table: TableModel,
  k: number,
  key: readonly ColumnModel[],
  read: (column: ColumnModel) => unknown,
  lookups: readonly boolean[],
): string | undefined {
  const plain = key.filter((_, i) => !lookups[i])
  if (plain.length === 0) return `${table.key}\u0000${k}`
  return tupleId(table, k, plain, read, key)
}

/**
 * The value row `r` of an insert writes to `column`: a column the insert leaves out holds NULL, unless
 * the server fills it (a default, an identity, a generated column: unknown here).
 */
function insertedValue(draft: StatementDraft, r: number, column: ColumnModel): unknown {
  if (draft.columns.includes(column.name)) return valueAt(draft, r, column.name)
  return column.hasDefault || column.identity !== null || column.generated ? undefined : null
}

/**
 * Whether some row of an insert draft has a key the application gave (not an id drawn by the flush):
 * a reference to an upserted row in it too (whose key may be any stored one).
 */
function givesKeys(draft: StatementDraft): boolean {
  const key = draft.table.primaryKey
  for (let r = 0; r < draft.rows.length; r++) {
    for (let k = 0; k < key.length; k++) {
      const value = valueAt(draft, r, key[k]!)
      if (!(value instanceof Slot) || value instanceof ConflictRef) return true
    }
  }
  return false
}

/**
 * The update statements, each one whose rows hand unique values to one another split so that none
 * does: its rows in layers, those freeing a value before those taking it, each layer a statement of
 * the same shape (their order follows from {@link findHandoffEdges}). So a row given the email another
 * row of the flush gives up for a new one is written once that one is; PostgreSQL, checking each row,
 * would otherwise meet the email twice in whatever order it updates the rows. A statement whose rows
 * hand values round (two rows swapping emails) stays whole, and the server reports the duplicate.
 *
 * @example
 * splitHandoffs([update]) // [update of the rows giving up emails, update of the rows taking them]
 */
export function splitHandoffs(updates: StatementDraft[]): StatementDraft[] {
  let out: StatementDraft[] | undefined
  for (let u = 0; u < updates.length; u++) {
    const draft = updates[u]!
    const layers = draft.rows.length > 1 && draft.table.uniques.length > 0 ? handoffLayers(draft) : undefined
    if (layers === undefined) {
      out?.push(draft)
      continue
    }
    out ??= updates.slice(0, u)
    for (const rows of layers) out.push(sliceDraft(draft, rows))
  }
  return out ?? updates
}

/** The rows of an update draft in layers by the unique values they hand on (see {@link splitHandoffs}). */
function handoffLayers(draft: StatementDraft): number[][] | undefined {
  const unique = uniqueColumns(draft.table)
  if (!draft.columns.some((name) => unique.has(name))) return undefined
  const n = draft.rows.length
  const freedBy = new Map<string, number>()
  const taken: [string, number][] = []
  eachChange(draft, uniqueConstraints, (before, after, r) => {
    if (before !== undefined) freedBy.set(before, r)
    if (after !== undefined) taken.push([after, r])
  })
  const edges: Edge[] = []
  for (const [id, r] of taken) {
    const from = freedBy.get(id)
    if (from !== undefined && from !== r) edges.push({ from, to: r })
  }
  if (edges.length === 0 || !acyclic(n, edges)) return undefined
  return groupByWave(assignWaves(n, edges))
}

/** A draft of the rows `rows` of `draft` (in that order), as grouping would have made it. */
function sliceDraft(draft: StatementDraft, rows: readonly number[]): StatementDraft {
  const pick = <T>(all: readonly T[]): T[] => rows.map((r) => all[r] as T)
  const values = new Map<string, unknown[]>()
  for (const [name, all] of draft.values) values.set(name, pick(all))
  const slice: StatementDraft = {
    kind: draft.kind,
    table: draft.table,
    columns: draft.columns,
    fixup: draft.fixup,
    upsert: draft.upsert,
    rows: pick(draft.rows),
    keys: pick(draft.keys),
    keyIds: pick(draft.keyIds),
    params: draft.params.map(pick),
    paramColumns: draft.paramColumns,
    slotted: [...draft.slotted],
    values,
  }
  if (draft.snapshots !== undefined) slice.snapshots = pick(draft.snapshots)
  return slice
}

/**
 * Calls `visit` for each row of an update draft and each of its `keys` (of `keysOf` its table) that
 * it sets and changes: the tuple before (as stored) and after (see {@link tupleId}; undefined where
 * it is not compared), and the row.
 */
function eachChange(
  draft: StatementDraft,
  keysOf: (table: TableModel) => readonly (readonly ColumnModel[])[],
  visit: (
    before: string | undefined,
    after: string | undefined,
    r: number,
    k: number,
    key: readonly ColumnModel[],
  ) => void,
): void {
  keysOf(draft.table).forEach((key, k) => {
    if (!key.some((c) => draft.columns.includes(c.name))) return
    for (let r = 0; r < draft.rows.length; r++) {
      const before = tupleId(draft.table, k, key, (c) => storedValue(draft, r, c))
      const after = updatedId(draft, r, k, key)
      if (before !== after) visit(before, after, r, k, key)
    }
  })
}

/**
 * The value row `r` of a stored-row draft (an update's or a delete's) holds in `column` as stored: its
 * key's part, else its entity's snapshot (undefined for a change set's row: not known).
 */
function storedValue(draft: StatementDraft, r: number, column: ColumnModel): unknown {
  if (draft.table.primaryKey.includes(column.name)) return valueAt(draft, r, column.name)
  return (draft.rows[r] as StoredInput).state?.snapshot?.[column.name]
}

/** The tuple of key `k` an updated row holds once updated: the columns it sets, else as stored. */
function updatedId(
  draft: StatementDraft,
  r: number,
  k: number,
  key: readonly ColumnModel[],
): string | undefined {
  return tupleId(draft.table, k, key, (c) =>
    draft.columns.includes(c.name) ? valueAt(draft, r, c.name) : storedValue(draft, r, c),
  )
}

/**
 * A text naming the tuple of key `k` of `table` whose values `read` gives, equal for tuples the
 * server holds equal; undefined when a value is null (unless the constraint is `NULLS NOT
 * DISTINCT`) or unknown, an id not assigned yet, or has no key form. `key` may be some columns of the
 * key `whole` (whose constraint says how NULLs compare).
 */
function tupleId(
  table: TableModel,
  k: number,
  key: readonly ColumnModel[],
  read: (column: ColumnModel) => unknown,
  whole: readonly ColumnModel[] = key,
): string | undefined {
  let id = `${table.key}\u0000${k}`
  for (const column of key) {
    const value = read(column)
    if (value === null && nullsEqual.has(whole)) {
      id += '\u0001' // no key form holds a control character before its NUL-separated text
      continue
    }
    if (value === null || value === undefined || value instanceof Slot) return undefined
    try {
      id += `\u0000${normalizeKeyValue(value, column)}`
    } catch {
      return undefined
    }
  }
  return id
}
