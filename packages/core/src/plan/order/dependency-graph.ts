import type { ForeignKeyModel, SchemaModel, TableModel } from '../../model/model.ts'
import { cascadeReach } from '../../schema/cascade-reach.ts'
import { perTable } from '../../schema/per-table.ts'
import { schemaTablesOf } from '../../schema/table-of-key.ts'
import { normalizeKeyValue } from '../../values/index.ts'
import {
  type InsertInput,
  ownSlot,
  Slot,
  type StatementDraft,
  type StoredInput,
  slotEntity,
} from '../draft.ts'
import { keyPart } from '../rows/row-key.ts'

/** A statement must run after another: `from` before `to`, both indexes into one list of drafts. */
export interface Edge {
  readonly from: number
  readonly to: number
}

/** Row `row` of statement `to` references, through `fk`, a new row of statement `from`. */
export interface Reference {
  readonly row: number
  readonly fk: ForeignKeyModel
}

/** Insert `from` before insert `to`, because of the references listed. */
export interface InsertEdge extends Edge {
  readonly references: readonly Reference[]
}

/** Delete `from` before delete `to`; `weight` says how much the order matters (see {@link findDeleteEdges}). */
export interface DeleteEdge extends Edge {
  readonly fk: ForeignKeyModel
  readonly weight: number
}

/** Foreign keys whose order matters at insert or update time: all but `DEFERRABLE INITIALLY DEFERRED` ones. */
const orderedForeignKeys: (table: TableModel) => readonly ForeignKeyModel[] = perTable((table) =>
  table.foreignKeys.filter((fk) => !fk.initiallyDeferred),
)

/**
 * The value row `r` of `draft` held in `name` when planned (an entity's reference resolved, an id not
 * assigned yet a slot): a foreign-key, unique or conflict column's value (`draft.values`), else its
 * key's part; undefined for a column the row does not write.
 */
export function valueAt(draft: StatementDraft, r: number, name: string): unknown {
  const captured = draft.values.get(name)
  if (captured !== undefined) return captured[r]
  const { table } = draft
  const at = table.primaryKey.indexOf(name)
  return at < 0 ? undefined : keyPart(draft.keys[r], at, table.primaryKey.length)
}

/**
 * Finds which insert statement holds the new row with given values in given columns of a table. Ids
 * not assigned yet are told apart by the entity they belong to: a tuple holding one matches only the
 * tuple holding the same one.
 */
class NewRowIndex {
  readonly #schema: SchemaModel
  readonly #inserts: readonly StatementDraft[]
  /** Keys of the tables with new rows: a foreign key to any other table references no new row. */
  readonly #tables = new Set<string>()
  /**
   * Per foreign key looked up, its target's new rows by the referenced columns' values: tuples of
   * values apart from tuples holding a slot (see {@link tupleId}), which never match each other.
   */
  readonly #indexes = new Map<ForeignKeyModel, readonly [Map<string, number>, Map<string, number>]>()
  /** A number per entity whose id a slot stands for, to name slots in tuples. */
  readonly #entities = new Map<object, number>()
  /**
   * Per table and column referenced by a single-column foreign key looked up with a slot (the usual
   * reference to a new row): the table's new rows by what the slot in that column names, no tuple
   * written per row (see {@link SlotIndex}). Foreign keys referencing the same column share it.
   */
  readonly #slotIndexes = new Map<TableModel, Map<string, SlotIndex>>()

  constructor(schema: SchemaModel, inserts: readonly StatementDraft[]) {
    this.#schema = schema
    this.#inserts = inserts
    for (const draft of inserts) this.#tables.add(draft.table.key)
  }

  /** Whether `fk` may reference a new row: its target table has some. */
  targetsNewRows(fk: ForeignKeyModel): boolean {
    return this.#tables.has(fk.target)
  }

  /** Indexes of the insert statements of `table`. */
  statementsOf(table: string): number[] {
    const found: number[] = []
    this.#inserts.forEach((draft, i) => {
      if (draft.table.key === table) found.push(i)
    })
    return found
  }

  /**
   * The statement inserting the row of `fk.target` that `values` (in `fk.columns` order, of the row
   * `row` of `from`, the table holding `fk`) references, if any. Callers ask {@link targetsNewRows}
   * once per foreign key first.
   */
  find(
    fk: ForeignKeyModel,
    from: TableModel,
    values: readonly unknown[],
    row: InsertInput | StoredInput,
  ): number | undefined {
    const target = this.#schema.tables.get(fk.target)
    if (target === undefined) return undefined
    const value = values[0]
    if (fk.columns.length === 1 && value instanceof Slot) {
      // As the tuple of one slot would match: the same entity, the same column.
      if (!from.columnsByName.has(fk.columns[0]!)) return undefined
      return this.#slotIndex(target, fk.targetColumns[0]!).get(value.column)?.get(slotEntity(value, row))
    }
    // The values are the referencing columns': read as their types (a `bigint` column referencing an
    // `int` key), they have the forms the referenced columns' values have.
    const tuple = this.#tupleId(from, fk.columns, values, row)
    if (tuple === undefined) return undefined
    return this.#index(fk, target)[values.some(isSlot) ? 1 : 0].get(tuple)
  }

  #index(fk: ForeignKeyModel, target: TableModel): readonly [Map<string, number>, Map<string, number>] {
    let index = this.#indexes.get(fk)
    if (index !== undefined) return index
    const columns = fk.targetColumns
    const known = new Map<string, number>()
    const slotted = new Map<string, number>()
    // One array of values, refilled for each row (the tuple is made of it; nothing keeps it).
    const values = new Array<unknown>(columns.length)
    for (let i = 0; i < this.#inserts.length; i++) {
      const draft = this.#inserts[i]!
      if (draft.table !== target) continue
      for (let r = 0; r < draft.rows.length; r++) {
        for (let c = 0; c < columns.length; c++) values[c] = valueAt(draft, r, columns[c]!)
        const tuple = this.#tupleId(target, columns, values, draft.rows[r]!)
        if (tuple !== undefined) (values.some(isSlot) ? slotted : known).set(tuple, i)
        // A reference to an upserted row is a slot of its entity whatever its key (see `conflict-ref.ts`).
        if ((draft.rows[r] as InsertInput).upsert === undefined) continue
        const own = this.#tupleId(target, columns, columns.map(ownSlot), draft.rows[r]!)
        if (own !== undefined) slotted.set(own, i)
      }
    }
    index = [known, slotted]
    this.#indexes.set(fk, index)
    return index
  }

  /**
   * The new rows of `target` by what the slot in their column `name` stands for: {@link #index}'s
   * tuples holding a slot, without a text per row. A later statement's row replaces an earlier one's,
   * as there.
   */
  #slotIndex(target: TableModel, name: string): SlotIndex {
    let ofTarget = this.#slotIndexes.get(target)
    if (ofTarget === undefined) {
      ofTarget = new Map()
      this.#slotIndexes.set(target, ofTarget)
    }
    let index = ofTarget.get(name)
    if (index !== undefined) return index
    index = new Map()
    ofTarget.set(name, index)
    if (!target.columnsByName.has(name)) return index
    for (let i = 0; i < this.#inserts.length; i++) {
      const draft = this.#inserts[i]!
      if (draft.table !== target) continue
      for (let r = 0; r < draft.rows.length; r++) {
        const row = draft.rows[r]!
        const value = valueAt(draft, r, name)
        if (value instanceof Slot) indexSlot(index, slotEntity(value, row), value.column, i)
        // A reference to an upserted row is a slot of its entity whatever its key (see `conflict-ref.ts`).
        if ((row as InsertInput).upsert !== undefined)
          indexSlot(index, slotEntity(ownSlot(name), row), name, i)
      }
    }
    return index
  }

  /**
   * Canonical id of key values in `columns` of `table` (`row`: whose own id an own slot is);
   * undefined when one is missing or null. No canonical form holds a NUL character, so the joined
   * forms are unambiguous; a tuple holding a slot is written in another form (each part marked and
   * its length given, a slot by the number of its entity and its column), looked up apart.
   */
  #tupleId(
    table: TableModel,
    columns: readonly string[],
    values: readonly unknown[],
    row: InsertInput | StoredInput,
  ) {
    let id = ''
    let slotted = false
    for (let i = 0; i < columns.length; i++) {
      const value = values[i]
      if (value === undefined || value === null) return undefined
      if (value instanceof Slot) slotted = true
    }
    for (let i = 0; i < columns.length; i++) {
      const value = values[i]
      const column = table.columnsByName.get(columns[i]!)
      if (column === undefined) return undefined
      if (!slotted) {
        id = i === 0 ? normalizeKeyValue(value, column) : `${id}\u0000${normalizeKeyValue(value, column)}`
        continue
      }
      if (value instanceof Slot) {
        const entity = slotEntity(value, row)
        let n = this.#entities.get(entity)
        if (n === undefined) {
          n = this.#entities.size
          this.#entities.set(entity, n)
        }
        id += `\u0000#${n}.${value.column.length}:${value.column}`
      } else {
        const text = normalizeKeyValue(value, column)
        id += `\u0000=${text.length}:${text}`
      }
    }
    return id
  }
}

/**
 * New rows by the slot their column holds: by the column the slot names (of its entity: most often
 * the one key column every slot names), then by its entity, the index of the statement inserting the
 * row. A map per column named, not one per entity.
 */
type SlotIndex = Map<string, Map<object, number>>

/** Notes in `index` that the slot of `entity`'s `column` is written by statement `i`. */
function indexSlot(index: SlotIndex, entity: object, column: string, i: number): void {
  let entities = index.get(column)
  if (entities === undefined) {
    entities = new Map()
    index.set(column, entities)
  }
  entities.set(entity, i)
}

function isSlot(value: unknown): boolean {
  return value instanceof Slot
}

/**
 * Insert-before-insert edges, from the data: insert(P) before insert(C) when a new C row references a
 * new P row through a foreign key that is not initially deferred. References inside one statement need
 * no order (foreign keys are checked at the end of the statement) and give no edge.
 */
export function findInsertEdges(schema: SchemaModel, inserts: readonly StatementDraft[]): InsertEdge[] {
  if (!mayReferenceEachOther(inserts)) return []
  const index = new NewRowIndex(schema, inserts)
  // Keyed by `from * inserts.length + to`: a number per pair, no text per reference.
  const edges = new Map<number, { from: number; to: number; references: Reference[] }>()
  for (let to = 0; to < inserts.length; to++) {
    const draft = inserts[to]!
    for (const fk of orderedForeignKeys(draft.table)) {
      if (!index.targetsNewRows(fk)) continue
      // One array of values, refilled for each row (`find` keeps nothing of it).
      const values = new Array<unknown>(fk.columns.length)
      for (let r = 0; r < draft.rows.length; r++) {
        for (let c = 0; c < values.length; c++) values[c] = valueAt(draft, r, fk.columns[c]!)
        const from = index.find(fk, draft.table, values, draft.rows[r]!)
        if (from === undefined || from === to) continue
        const id = from * inserts.length + to
        let edge = edges.get(id)
        if (edge === undefined) {
          edge = { from, to, references: [] }
          edges.set(id, edge)
        }
        edge.references.push({ row: r, fk })
      }
    }
  }
  return [...edges.values()].sort((a, b) => a.from - b.from || a.to - b.to)
}

/**
 * Whether a row of one insert may reference a row of another: some ordered foreign key of an insert's
 * table targets a table another insert writes (or its own table, written by another insert). Found
 * with plain loops over the few drafts: the usual flush of unrelated tables builds no index.
 */
function mayReferenceEachOther(inserts: readonly StatementDraft[]): boolean {
  for (let to = 0; to < inserts.length; to++) {
    const fks = orderedForeignKeys(inserts[to]!.table)
    for (let f = 0; f < fks.length; f++) {
      const target = fks[f]!.target
      for (let from = 0; from < inserts.length; from++)
        if (from !== to && inserts[from]!.table.key === target) return true
    }
  }
  return false
}

/**
 * Insert-before-update edges (`updates` indexes are offset by `updateOffset`): an update that sets a
 * foreign key (not initially deferred) to a new row runs after that row's insert. When the update sets only
 * part of a composite foreign key whose other columns are not in the primary key, the referenced row is
 * unknown and the update runs after every insert of the target table.
 */
export function findUpdateEdges(
  schema: SchemaModel,
  inserts: readonly StatementDraft[],
  updates: readonly StatementDraft[],
  updateOffset: number,
): Edge[] {
  if (updates.length === 0 || inserts.length === 0) return []
  const index = new NewRowIndex(schema, inserts)
  const edges = new Set<string>()
  updates.forEach((draft, u) => {
    const table = draft.table
    for (const fk of orderedForeignKeys(table)) {
      if (!index.targetsNewRows(fk) || !fk.columns.some((name) => draft.columns.includes(name))) continue
      const known = fk.columns.every(
        (name) => draft.columns.includes(name) || table.primaryKey.includes(name),
      )
      if (!known) {
        for (const from of index.statementsOf(fk.target)) edges.add(`${from}>${u + updateOffset}`)
        continue
      }
      const values = new Array<unknown>(fk.columns.length)
      for (let r = 0; r < draft.rows.length; r++) {
        for (let c = 0; c < values.length; c++) values[c] = valueAt(draft, r, fk.columns[c]!)
        const from = index.find(fk, table, values, draft.rows[r]!)
        if (from !== undefined) edges.add(`${from}>${u + updateOffset}`)
      }
    }
  })
  return [...edges].map(parseEdge)
}

/**
 * Update-before-delete edges (indexes offset as given): an update of C runs before the delete of P when
 * it sets a column of a foreign key C -> P (it may move rows away from a deleted P row), or when that key
 * cascades deletes to a row it updates (deleting P first would delete the updated row and fail the
 * update's row count: see {@link mayCascadeTo}).
 */
export function findUpdateDeleteEdges(
  updates: readonly StatementDraft[],
  updateOffset: number,
  deletes: readonly StatementDraft[],
  deleteOffset: number,
): Edge[] {
  const edges: Edge[] = []
  updates.forEach((draft, u) => {
    deletes.forEach((deleted, d) => {
      const matters = draft.table.foreignKeys.some(
        (fk) =>
          fk.target === deleted.table.key &&
          (fk.columns.some((name) => draft.columns.includes(name)) ||
            (fk.onDelete === 'cascade' && mayCascadeTo(draft, fk, deleted))),
      )
      if (matters) edges.push({ from: u + updateOffset, to: d + deleteOffset })
    })
  })
  return edges
}

/**
 * Whether the cascade of `fk` (from `update`'s table, whose columns it does not set) may remove a row
 * of `update` when `deleted` runs first. A row whose key as stored holds a null references nothing;
 * a row of another table whose key holds none of the deleted rows' keys is no child of theirs. Else
 * it may be: its stored values unknown (a change set's row), a key to other columns than the primary
 * key, a tree (a row may be a deleted row's grandchild), a value without a key form.
 *
 * A unique value freed by deleting a node of a tree and taken by an update of a root is then handed
 * on: the update is no longer held before the delete.
 */
function mayCascadeTo(update: StatementDraft, fk: ForeignKeyModel, deleted: StatementDraft): boolean {
  const { table } = update
  const target = deleted.table
  const byPrimaryKey =
    fk.targetColumns.length === target.primaryKey.length &&
    fk.targetColumns.every((name, i) => target.primaryKey[i] === name)
  const tree = fk.target === table.key
  let deletedKeys: Set<string> | undefined
  const values = new Array<unknown>(fk.columns.length)
  for (let r = 0; r < update.rows.length; r++) {
    const state = (update.rows[r] as StoredInput).state
    let none = false
    for (let c = 0; c < fk.columns.length; c++) {
      const name = fk.columns[c]!
      const value = table.primaryKey.includes(name) ? valueAt(update, r, name) : state?.snapshot?.[name]
      if (value === undefined) return true
      if (value === null) none = true
      values[c] = value
    }
    if (none) continue
    if (tree || !byPrimaryKey) return true
    deletedKeys ??= keyTexts(deleted)
    const text = keyText(target, values)
    if (text === undefined || deletedKeys.has(text)) return true
  }
  return false
}

/** The key texts of a delete's rows (see {@link keyText}); a row whose key has none is left out. */
function keyTexts(deleted: StatementDraft): Set<string> {
  const { table, keys } = deleted
  const parts = table.primaryKey.length
  const out = new Set<string>()
  const values = new Array<unknown>(parts)
  for (let r = 0; r < keys.length; r++) {
    for (let i = 0; i < parts; i++) values[i] = keyPart(keys[r], i, parts)
    const text = keyText(table, values)
    if (text !== undefined) out.add(text)
  }
  return out
}

/** The primary key of `table` holding `values` as one text, equal for keys the server holds equal. */
function keyText(table: TableModel, values: readonly unknown[]): string | undefined {
  let text = ''
  for (let i = 0; i < values.length; i++) {
    const column = table.columnsByName.get(table.primaryKey[i]!)
    if (column === undefined) return undefined
    try {
      text += `${normalizeKeyValue(values[i], column)}\u0000`
    } catch {
      return undefined
    }
  }
  return text
}

/** The delete order really matters: the server would reject or the row count check would fail. */
export const DELETE_ORDER_REQUIRED = 1_000_000
/** The order matters unless the referencing rows were moved away (a nullable key an update may have nulled). */
export const DELETE_ORDER_LIKELY = 1_000
/** The order does not matter for the server (SET NULL, SET DEFAULT, or a check deferred to COMMIT). */
export const DELETE_ORDER_HARMLESS = 1

/** How much deleting C before P matters for the foreign key C -> P. */
function deleteOrderWeight(table: TableModel, fk: ForeignKeyModel): number {
  if (fk.onDelete === 'cascade') return DELETE_ORDER_REQUIRED
  if (fk.onDelete === 'set null' || fk.onDelete === 'set default') return DELETE_ORDER_HARMLESS
  // RESTRICT is checked at once even when the constraint is deferred; NO ACTION waits for COMMIT then.
  if (fk.onDelete === 'no action' && fk.initiallyDeferred) return DELETE_ORDER_HARMLESS
  const nullable = fk.columns.every((name) => table.columnsByName.get(name)?.nullable === true)
  return nullable ? DELETE_ORDER_LIKELY : DELETE_ORDER_REQUIRED
}

/**
 * Delete-before-delete edges (indexes offset as given), per table since deleted rows' foreign key values
 * are not known: delete(C) before delete(P) for every foreign key C -> P (C another table), whatever its
 * deferral or ON DELETE action (see {@link findCascadeDeleteEdges} for keys to the rows a cascade
 * removes). Each edge is weighted by how much its order matters, so that a cycle is
 * broken where it hurts least.
 */
export function findDeleteEdges(deletes: readonly StatementDraft[], deleteOffset: number): DeleteEdge[] {
  const edges: DeleteEdge[] = []
  deletes.forEach((draft, c) => {
    for (const fk of draft.table.foreignKeys) {
      const p = deletes.findIndex((other) => other.table.key === fk.target)
      if (p >= 0 && p !== c)
        edges.push({
          from: c + deleteOffset,
          to: p + deleteOffset,
          fk,
          weight: deleteOrderWeight(draft.table, fk),
        })
    }
  })
  return edges
}

/**
 * Delete-before-delete edges that may matter (indexes offset as given): delete(C) before delete(P)
 * where C has a foreign key, without an action of its own (no CASCADE, SET NULL or SET DEFAULT, not
 * deferred), to a table T whose rows the delete of P may remove by ON DELETE CASCADE (through any
 * chain of such keys, T not P): comment -> post, when the delete of author cascades to post. Whether
 * the deleted C rows reference rows the cascade reaches is not known, so the caller keeps such an edge
 * only where it contradicts no other (see `orderStatements`).
 */
export function findCascadeDeleteEdges(deletes: readonly StatementDraft[], deleteOffset: number): Edge[] {
  const edges: Edge[] = []
  if (deletes.length < 2) return edges
  deletes.forEach((draft, c) => {
    for (const fk of draft.table.foreignKeys) {
      if (deleteOrderWeight(draft.table, fk) === DELETE_ORDER_HARMLESS) continue
      for (let q = 0; q < deletes.length; q++) {
        const target = deletes[q]!.table
        if (q === c || target.key === fk.target || !cascadeReach(target).has(fk.target)) continue
        edges.push({ from: c + deleteOffset, to: q + deleteOffset })
      }
    }
  })
  return edges
}

/**
 * Delete-before-delete edges that may matter (indexes offset as given): delete(P) before delete(X)
 * where a table T whose rows the delete of P may remove by ON DELETE CASCADE has a foreign key,
 * without an action of its own (no CASCADE, SET NULL or SET DEFAULT, not deferred), to X: the rows of
 * T that reference the deleted X rows may be the ones P's cascade removes (a membership removed with
 * its team and its role: the team first, which takes the membership with it). Whether they are is not
 * known, so the caller keeps such an edge only where it contradicts no other (see `orderStatements`).
 */
export function findCascadeFreeingEdges(deletes: readonly StatementDraft[], deleteOffset: number): Edge[] {
  const edges: Edge[] = []
  if (deletes.length < 2) return edges
  deletes.forEach((draft, p) => {
    const freed = freedByCascade(draft.table)
    if (freed.size === 0) return
    for (let x = 0; x < deletes.length; x++)
      if (x !== p && freed.has(deletes[x]!.table.key))
        edges.push({ from: p + deleteOffset, to: x + deleteOffset })
  })
  return edges
}

/**
 * The keys of the tables that rows a delete from `table` may remove by ON DELETE CASCADE reference
 * without an action of their own (see {@link findCascadeFreeingEdges}); `table`'s own left out.
 * Found once per table.
 */
const freedByCascade = perTable((table: TableModel): ReadonlySet<string> => {
  const freed = new Set<string>()
  const tables = schemaTablesOf(table)
  for (const key of cascadeReach(table)) {
    const t = tables?.get(key)
    if (t === undefined) continue
    for (const fk of t.foreignKeys)
      if (
        fk.target !== t.key &&
        fk.target !== table.key &&
        deleteOrderWeight(t, fk) !== DELETE_ORDER_HARMLESS
      )
        freed.add(fk.target)
  }
  return freed
})

function parseEdge(id: string): Edge {
  const [from, to] = id.split('>')
  return { from: Number(from), to: Number(to) }
}
