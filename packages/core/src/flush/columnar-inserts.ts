import { keyFills } from '../ids/key-fill.ts'
import { copiesRows } from '../plan/copy-statements.ts'
import { insertReturns, type ServerValuesPolicy } from '../plan/server-values.ts'
import { copySql } from '../plan/sql/copy-sql.ts'
import { statementForm, statementSql } from '../plan/statement-sql.ts'
import type { FlushPlan, PlannedStatement } from '../plan/types.ts'
import type { ColumnModel, TableModel } from '../schema/model.ts'
import { cloneValue } from '../track/clone.ts'
import type { EntityState } from '../track/entity-state.ts'
import { stateOf } from '../track/entity-state.ts'
import { emptyRow } from '../track/row.ts'
import { compareNormalizedKeys, encodeValue, normalizeKeyValue } from '../values/index.ts'

/** The new rows of one table in a columnar flush, their values encoded column by column. */
interface ColumnarTable {
  readonly table: TableModel
  /** The key column, filled from its sequence. */
  readonly key: ColumnModel
  /** The columns written, in table order: the key and every column the rows hold. */
  readonly columns: readonly string[]
  /** The key's index in `columns`. */
  readonly keyAt: number
  /** Per column, the rows' texts in row order (the key's is empty until the ids are known). */
  readonly texts: (string | null)[][]
  /**
   * Per column, the rows' values as encoded (objects copied): their snapshots once the flush
   * committed, whatever the application does to the entities meanwhile. The key's is empty.
   */
  readonly values: unknown[][]
  readonly states: readonly EntityState[]
  /** The rows go as one COPY (enough of them, into a table COPY treats like INSERT), else as one INSERT. */
  readonly copy: boolean
}

/**
 * The new rows of a flush of plain inserts, validated and encoded column by column before the ids
 * are known: what {@link columnarPlan} turns into the plan once they are.
 */
export interface ColumnarInserts {
  readonly tables: readonly ColumnarTable[]
}

/** What decides whether a table's rows may go the columnar way. */
export interface ColumnarContext {
  /** Inserts of at least this many rows go as COPY (into a copyable table). */
  readonly copyRows: number
  readonly serverValues: ServerValuesPolicy
}

/** The location every value of a columnar table is checked at: a failure falls back to planning. */
const NOWHERE = { table: '' }

/**
 * The inserts of a flush, encoded column by column, when the flush is made of them only and the full
 * planner would send each table's rows as one statement in one wave: each new row without its
 * single-column key (a sequence fills it), the rows of a table all holding the same columns, none an
 * entity, no foreign key between the flush's tables, no value the server fills to read back. Each
 * table's rows then go as one COPY when there are at least `copyRows` of them and the table is
 * copyable, else as one INSERT, as the full planner sends them. Undefined otherwise, and for any value
 * that fails to encode: the full planner then plans the flush (and reports the bad value as it does).
 *
 * Planning 100,000 such rows the full way (change set, row drafts, placeholders, rebinding) took
 * about four times the client time of this way, and kept five objects per row alive; a flush of a
 * few rows into each of a few tables spends about a third less client CPU this way.
 *
 * @example
 * const columnar = encodeColumnar(pending.inserts, context) // validates every value
 * // ... ids fetched and assigned ...
 * columnar && columnarPlan(columnar) // the plan, and what it sends of each entity
 */
export function encodeColumnar(
  inserts: readonly EntityState[],
  context: ColumnarContext,
): ColumnarInserts | undefined {
  if (inserts.length === 0) return undefined
  const byTable = new Map<TableModel, EntityState[]>()
  let last: EntityState[] | undefined
  let lastTable: TableModel | undefined
  for (const state of inserts) {
    if (state.table !== lastTable) {
      lastTable = state.table
      last = byTable.get(state.table)
      if (last === undefined) {
        last = []
        byTable.set(state.table, last)
      }
    }
    last!.push(state)
  }
  const flushTables = new Set<string>()
  for (const table of byTable.keys()) flushTables.add(table.key)
  // Every table is checked before any value is encoded: a parent and its children (the usual flush
  // of plain inserts that cannot go this way) encode nothing here.
  const keys = new Map<TableModel, ColumnModel>()
  for (const table of byTable.keys()) {
    const key = columnarTable(table, flushTables)
    if (key === undefined) return undefined
    keys.set(table, key)
  }
  const tables: ColumnarTable[] = []
  for (const [table, states] of byTable) {
    const encoded = encodeTable(table, keys.get(table)!, states, context)
    if (encoded === undefined) return undefined
    tables.push(encoded)
  }
  tables.sort((a, b) => (a.table.key < b.table.key ? -1 : a.table.key > b.table.key ? 1 : 0))
  return { tables }
}

/** Whether `table`'s rows may go the columnar way at all (see {@link encodeColumnar}): its key if so. */
function columnarTable(table: TableModel, flushTables: ReadonlySet<string>): ColumnModel | undefined {
  if (table.primaryKey.length !== 1) return undefined
  const key = keyFills(table).sequence[0]
  if (key === undefined) return undefined
  if (table.foreignKeys.some((fk) => flushTables.has(fk.target))) return undefined
  return key
}

/** The columns the first row holds, in table order, the key included; undefined if one is not writable. */
function writtenColumns(table: TableModel, key: ColumnModel, row: Readonly<Record<string, unknown>>) {
  const columns: string[] = []
  let held = 0
  for (const column of table.columns) {
    if (column.name === key.name) {
      columns.push(column.name)
      continue
    }
    if (!Object.hasOwn(row, column.name)) continue
    if (column.generated) return undefined
    columns.push(column.name)
    held++
  }
  // A property that is not a column: the planner names it.
  let own = 0
  for (const name in row) if (Object.hasOwn(row, name)) own++
  return own === held ? columns : undefined
}

/** Whether `row` holds exactly the columns of `columns` but the key (`keyAt`). Allocates nothing. */
function sameColumns(
  row: Readonly<Record<string, unknown>>,
  columns: readonly string[],
  keyAt: number,
): boolean {
  let own = 0
  for (const name in row) {
    if (!Object.hasOwn(row, name)) return false
    own++
  }
  if (own !== columns.length - 1) return false
  for (let c = 0; c < columns.length; c++) if (c !== keyAt && !Object.hasOwn(row, columns[c]!)) return false
  return true
}

/** Whether the server would fill a column of these rows that the flush then reads back. */
function readsBack(table: TableModel, columns: readonly string[], context: ColumnarContext): boolean {
  return context.serverValues(table) && insertReturns(table, columns).length > 0
}

function encodeTable(
  table: TableModel,
  key: ColumnModel,
  states: readonly EntityState[],
  context: ColumnarContext,
): ColumnarTable | undefined {
  const columns = writtenColumns(table, key, states[0]!.row)
  if (columns === undefined || readsBack(table, columns, context)) return undefined
  const keyAt = columns.indexOf(key.name)
  const models = columns.map((name) => table.columnsByName.get(name)!)
  const texts: (string | null)[][] = columns.map(() => new Array<string | null>(states.length))
  const values: unknown[][] = columns.map((_, c) => (c === keyAt ? [] : new Array<unknown>(states.length)))
  try {
    for (let r = 0; r < states.length; r++) {
      const row = states[r]!.row
      if (!sameColumns(row, columns, keyAt)) return undefined
      for (let c = 0; c < models.length; c++) {
        if (c === keyAt) continue
        let value = row[models[c]!.name]
        if (typeof value === 'object' && value !== null && stateOf(value) !== undefined) return undefined
        texts[c]![r] = encodeValue(value, models[c]!, NOWHERE)
        if (typeof value === 'object' && value !== null) value = cloneValue(value)
        values[c]![r] = value
      }
    }
  } catch {
    return undefined
  }
  const copy = copiesRows(table, states.length, context.copyRows)
  return { table, key, columns, keyAt, texts, values, states, copy }
}

/** A columnar flush's plan and what it sends of each entity. */
export interface ColumnarPrepared {
  readonly plan: FlushPlan
  /** What the flush sends of each entity (their snapshots once it committed): see {@link whileSending}. */
  readonly sent: Map<EntityState, Record<string, unknown>>
  /**
   * Fills `sent` from the values encoded, not from the entities (the application may change them
   * meanwhile), a slice of rows per turn of the event loop, so that the driver goes on writing the
   * rows: meant for the time the server stores them. Cannot fail; called again, nothing.
   */
  whileSending(): Promise<void>
}

/** Snapshots taken per turn of the event loop while the flush is sent. */
const SNAPSHOTS_PER_TURN = 4096

/**
 * The plan of `columnar` once the ids are assigned to its rows, with what it sends of each entity:
 * exactly what the full planner makes of the same rows (one COPY or INSERT per table in one wave,
 * ordered by table; rows in key order). Undefined when a row has no id, or the ids are not ascending in row
 * order (the full planner then sorts them).
 *
 * @example
 * const prepared = columnarPlan(columnar) ?? prepare()
 * send(prepared.plan)
 * prepared.complete() // while the server works
 */
export function columnarPlan(columnar: ColumnarInserts): ColumnarPrepared | undefined {
  const statements: PlannedStatement[] = []
  const keyColumns: unknown[][] = []
  for (const { table, key, columns, keyAt, texts, states, copy } of columnar.tables) {
    const keys: unknown[] = new Array(states.length)
    const keyTexts: (string | null)[] = new Array(states.length)
    let previous: string | undefined
    for (let r = 0; r < states.length; r++) {
      const id = states[r]!.row[key.name]
      if (id === undefined || id === null) return undefined
      const normalized = normalizeKeyValue(id, key)
      if (previous !== undefined && compareNormalizedKeys(previous, normalized, key) >= 0) return undefined
      previous = normalized
      keys[r] = id
      keyTexts[r] = encodeValue(id, key, { table: table.key })
    }
    keyColumns.push(keys)
    const params = texts.slice()
    params[keyAt] = keyTexts
    const base = {
      kind: 'insert' as const,
      table: table.key,
      rowCount: states.length,
      keys,
      fixup: false,
      columns,
    }
    statements.push(
      copy
        ? { ...base, sql: copySql(table, columns), params, copy: true }
        : {
            ...base,
            sql: statementSql(table, 'insert', columns, false, undefined, statementForm(base)),
            params,
          },
    )
  }
  const sent = new Map<EntityState, Record<string, unknown>>()
  let started = false
  return {
    plan: { waves: [statements] },
    sent,
    async whileSending() {
      if (started) return
      started = true
      for (let t = 0; t < columnar.tables.length; t++) {
        const table = columnar.tables[t]!
        for (let from = 0; from < table.states.length; from += SNAPSHOTS_PER_TURN) {
          if (from > 0) await new Promise((resolve) => setImmediate(resolve))
          snapshots(table, keyColumns[t]!, sent, from, from + SNAPSHOTS_PER_TURN)
        }
      }
    },
  }
}

/**
 * Adds the snapshot of rows `from` to `to` (exclusive) of `table` to `sent`: the values encoded, the
 * key column holding `keys` (the ids as the rows hold them), the columns the rows do not hold
 * undefined, in table order (as `snapshotOf` makes them).
 */
function snapshots(
  { table, key, columns, values, states }: ColumnarTable,
  keys: readonly unknown[],
  sent: Map<EntityState, Record<string, unknown>>,
  from: number,
  to: number,
): void {
  const at = table.columns.map((c) => columns.indexOf(c.name))
  const names = table.columns.map((c) => c.name)
  for (let r = from; r < Math.min(to, states.length); r++) {
    const snapshot = emptyRow()
    for (let c = 0; c < names.length; c++) {
      const name = names[c]!
      snapshot[name] = name === key.name ? keys[r] : at[c]! < 0 ? undefined : values[at[c]!]![r]
    }
    sent.set(states[r]!, snapshot)
  }
}
