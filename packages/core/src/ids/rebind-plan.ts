import type { FlushPlan, PlannedStatement } from '../plan/types.ts'
import type { ColumnModel, TableModel } from '../schema/model.ts'
import { type PendingChanges, resolveReference } from '../track/changes.ts'
import { type EntityState, stateOf } from '../track/entity-state.ts'
import { compareNormalizedKeys, encodeValue, normalizeKeyValue } from '../values/index.ts'
import type { ProvisionalIds } from './assign-ids.ts'

/**
 * The index k - 1 of the placeholder -k (given as its text or as a number) when 1 <= k <= `count`,
 * else -1. Allocates nothing.
 */
function placeholderIndex(placeholder: unknown, count: number): number {
  if (typeof placeholder === 'number') {
    const k = -placeholder
    return Number.isInteger(k) && k >= 1 && k <= count ? k - 1 : -1
  }
  if (typeof placeholder !== 'string') return -1
  // The canonical text of -k: a minus sign, then digits without a leading zero.
  const length = placeholder.length
  if (length < 2 || length > 16 || placeholder.charCodeAt(0) !== 45 /* - */) return -1
  let k = 0
  for (let i = 1; i < length; i++) {
    const digit = placeholder.charCodeAt(i) - 48
    if (digit < 0 || digit > 9 || (i === 1 && digit === 0)) return -1
    k = k * 10 + digit
  }
  return k <= count ? k - 1 : -1
}

/**
 * The placeholders of a flush and the ids that replaced them. `provisionalIds` numbers the
 * placeholders -1, -2... in its map's order, so the k-th placeholder's id is found at k - 1.
 */
class Ids {
  /** The real ids' texts (as the key columns write them), by placeholder. */
  readonly #texts: readonly string[]
  /** The real ids as the rows hold them, by placeholder. */
  readonly #values: readonly unknown[]
  #real: Set<string> | undefined

  private constructor(texts: string[], values: unknown[]) {
    this.#texts = texts
    this.#values = values
  }

  /** The ids the rows of `provisional` hold now; undefined when a row has none, or the placeholders are not -1, -2... */
  static of(provisional: ProvisionalIds): Ids | undefined {
    const texts: string[] = []
    const values: unknown[] = []
    for (const [state, placeholder] of provisional) {
      if (placeholderIndex(placeholder, Number.MAX_SAFE_INTEGER) !== texts.length) return undefined
      const table = state.table
      if (table.primaryKey.length !== 1) return undefined // a sequence part of a composite key: plan again
      const column = table.columnsByName.get(table.primaryKey[0]!)!
      const id = state.row[column.name]
      const text = id === undefined || id === null ? null : encodeValue(id, column, { table: table.key })
      if (text === null) return undefined
      texts.push(text)
      values.push(id)
    }
    return new Ids(texts, values)
  }

  /** The index of the placeholder whose text (or value) this is, or -1. Allocates nothing. */
  index(placeholder: unknown): number {
    return placeholderIndex(placeholder, this.#texts.length)
  }

  /** The real id's text at `index` (see {@link index}). */
  textAt(index: number): string {
    return this.#texts[index]!
  }

  /** The real id at `index`, as the rows hold it. */
  valueAt(index: number): unknown {
    return this.#values[index]
  }

  /** Whether `text` is a placeholder's text. */
  isPlaceholder(text: string): boolean {
    return this.index(text) >= 0
  }

  /** Whether `text` is one of the real ids' texts. */
  isReal(text: string): boolean {
    this.#real ??= new Set(this.#texts)
    return this.#real.has(text)
  }

  /** The real id's text for a placeholder's text; anything else as it is. */
  text(text: string): string {
    const i = this.index(text)
    return i < 0 ? text : this.#texts[i]!
  }

  /** The real id for a placeholder value (as a change set holds it); anything else as it is. */
  value(value: unknown): unknown {
    const i = this.index(value)
    return i < 0 ? value : this.#values[i]
  }
}

/**
 * Per table, the columns whose cells may hold a placeholder, or whose values decide which new rows
 * reference which: the key, the foreign-key columns, and every column an inserted row of the table
 * holds an entity in. Undefined when a key column holds an entity (a row keyed by another row's key:
 * the full plan handles it).
 */
function placeholderColumns(pending: PendingChanges): Map<TableModel, ColumnModel[]> | undefined {
  const out = new Map<TableModel, Set<string>>()
  for (const state of pending.inserts) {
    const table = state.table
    let names = out.get(table)
    if (names === undefined) {
      names = new Set([...table.primaryKey, ...table.foreignKeys.flatMap((fk) => fk.columns)])
      out.set(table, names)
    }
    for (const name in state.row) {
      if (stateOf(state.row[name]) === undefined) continue
      if (table.primaryKey.includes(name)) return undefined
      names.add(name)
    }
  }
  const columns = new Map<TableModel, ColumnModel[]>()
  for (const [table, names] of out) {
    columns.set(
      table,
      table.columns.filter((c) => names.has(c.name)),
    )
  }
  return columns
}

/**
 * Whether every value in the placeholder columns that is not a placeholder has a text that is
 * neither a placeholder's nor a real id's: then each cell holding a placeholder's text holds that
 * placeholder, and no value the application gave collides with an id this flush took (a repeated key,
 * or a reference the placeholders did not show).
 */
function noCollision(
  pending: PendingChanges,
  provisional: ProvisionalIds,
  columns: ReadonlyMap<TableModel, readonly ColumnModel[]>,
  ids: Ids,
): boolean {
  for (const state of pending.inserts) {
    const table = state.table
    const own = provisional.get(state) !== undefined ? table.primaryKey[0] : undefined
    for (const column of columns.get(table) ?? []) {
      const name = column.name
      if (name === own || !(name in state.row)) continue
      const raw = state.row[name]
      const ref = stateOf(raw)
      if (ref !== undefined && provisional.get(ref) !== undefined) {
        const value = resolveReference(raw, column, table, state.owner, provisional)
        if (value === provisional.get(ref)) continue // the referenced row's placeholder
      }
      const value = ref === undefined ? raw : resolveReference(raw, column, table, state.owner)
      const text =
        value === undefined || value === null ? null : encodeValue(value, column, { table: table.key })
      if (text !== null && (ids.isPlaceholder(text) || ids.isReal(text))) return false
    }
  }
  return true
}

/**
 * `statement` with its placeholders replaced by the real ids, rows sorted again by key. Each row's
 * placeholder is read once from its key; the key column's cells are that row's placeholder text
 * (or a key the application gave), the other replaced columns are looked up cell by cell.
 */
function rebindStatement(
  statement: PlannedStatement,
  table: TableModel,
  columns: readonly ColumnModel[],
  ids: Ids,
): PlannedStatement {
  const replaced = new Set(columns.map((c) => c.name))
  const keyColumn = table.primaryKey.length === 1 ? table.primaryKey[0] : undefined
  const rows = statement.keys.length
  const at = new Int32Array(rows)
  const keys: unknown[] = new Array(rows)
  for (let r = 0; r < rows; r++) {
    const key = statement.keys[r]
    const i = ids.index(key)
    at[r] = i
    keys[r] = i < 0 ? key : ids.valueAt(i)
  }
  const params = statement.params.map((cells, c) => {
    const name = statement.columns[c]!
    if (!replaced.has(name)) return cells
    const out: (string | null)[] = new Array(cells.length)
    const own = name === keyColumn
    for (let r = 0; r < cells.length; r++) {
      const text = cells[r] ?? null
      const i = own ? at[r]! : -1
      out[r] = i >= 0 ? ids.textAt(i) : text === null ? null : ids.text(text)
    }
    return out
  })
  const order = keyOrder(table, keys)
  if (order === undefined) return { ...statement, params, keys }
  return {
    ...statement,
    params: params.map((cells) => reorder(cells, order)),
    keys: reorder(keys, order),
  }
}

function reorder<T>(items: readonly T[], order: Int32Array): T[] {
  const out: T[] = new Array(order.length)
  for (let r = 0; r < order.length; r++) out[r] = items[order[r]!]!
  return out
}

/**
 * The row order by (single-column) key, or undefined when the rows are in order already. Rows in
 * the reverse order (placeholders -1, -2... sort the other way round from ids drawn in ascending
 * order) are turned round without sorting.
 */
function keyOrder(table: TableModel, keys: readonly unknown[]): Int32Array | undefined {
  if (table.primaryKey.length !== 1) return undefined // no placeholder in a composite key (no entity as a key)
  const column = table.columnsByName.get(table.primaryKey[0]!)!
  const ids = keys.map((key) => normalizeKeyValue(key, column))
  let ascending = true
  let descending = true
  for (let i = 1; i < ids.length && (ascending || descending); i++) {
    const order = compareNormalizedKeys(ids[i - 1]!, ids[i]!, column)
    if (order > 0) ascending = false
    if (order <= 0) descending = false
  }
  if (ascending) return undefined
  const order = new Int32Array(ids.length)
  if (descending) {
    for (let r = 0; r < ids.length; r++) order[r] = ids.length - 1 - r
    return order
  }
  for (let r = 0; r < ids.length; r++) order[r] = r
  return order.sort((a, b) => compareNormalizedKeys(ids[a]!, ids[b]!, column) || a - b)
}

/**
 * A flush planned with placeholder ids (`provisional`, before fetching the real ones) as planning
 * again with the real ids its rows hold now would make it: the same statements and waves (the
 * placeholders stood for the ids one for one, so the foreign keys between new rows are the same),
 * each placeholder's text replaced by its id's, rows ordered again by key; and what it sends of each
 * entity (`sent`, taken with the plan) with the real ids. Planning 100,000 new rows again took about
 * as long as the first time; this takes a fraction of it.
 *
 * Only for plain inserts, one statement per table, every key sent (none left to the server), no
 * placeholder in a composite key, no entity as a key, and no value given by the application whose text is a placeholder's or one of the real ids (a repeated key, or a reference
 * planning again would see): undefined otherwise, and the flush plans again. `sent` is changed only
 * when the answer is not undefined.
 *
 * @example
 * const changes = toChangeSet(pending, uow, provisional)
 * const plan = planFlush(schema, changes) // validates before anything is sent
 * const sent = uow.sentValues(pending, changes)
 * // ... the ids fetched and assigned ...
 * rebindFlush(plan, sent, pending, provisional) ?? planAgain()
 */
export function rebindFlush(
  plan: FlushPlan,
  sent: ReadonlyMap<EntityState, Record<string, unknown>>,
  pending: PendingChanges,
  provisional: ProvisionalIds,
):
  | { readonly plan: FlushPlan; readonly sent: ReadonlyMap<EntityState, Record<string, unknown>> }
  | undefined {
  if (pending.updates.length + pending.deletes.length + pending.upserts.length > 0) return undefined
  if (provisional.size === 0) return undefined
  const tables = new Map<string, TableModel>()
  for (const state of pending.inserts) tables.set(state.table.key, state.table)
  const seen = new Set<string>()
  for (const statement of plan.waves.flat()) {
    if (statement.kind !== 'insert' || statement.upsert || statement.fixup || statement.returning)
      return undefined
    if (seen.has(statement.table) || !tables.has(statement.table)) return undefined
    seen.add(statement.table)
    // Rows whose key the server fills have no placeholder to replace, nor a key to sort by.
    const table = tables.get(statement.table)!
    if (!table.primaryKey.every((name) => statement.columns.includes(name))) return undefined
  }
  const ids = Ids.of(provisional)
  const columns = placeholderColumns(pending)
  if (ids === undefined || columns === undefined) return undefined
  if (!noCollision(pending, provisional, columns, ids)) return undefined
  for (const [state, snapshot] of sent) {
    for (const column of columns.get(state.table) ?? []) {
      snapshot[column.name] = ids.value(snapshot[column.name])
    }
  }
  return {
    sent,
    plan: {
      waves: plan.waves.map((wave) =>
        wave.map((statement) => {
          const table = tables.get(statement.table)!
          return rebindStatement(statement, table, columns.get(table) ?? [], ids)
        }),
      ),
    },
  }
}
