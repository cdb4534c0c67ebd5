import type { TableModel } from '../../model/model.ts'
import { deleteSql } from '../sql/delete-sql.ts'
import { insertSql } from '../sql/insert-sql.ts'
import type { RowsForm } from '../sql/sql-text.ts'
import { updateSql } from '../sql/update-sql.ts'
import { onConflictSql } from '../sql/upsert-sql.ts'
import type { PlannedStatement, StatementKind, UpsertSpec } from '../types.ts'
import { ShapeCache } from './shape-cache.ts'

/** The texts of the statement shapes seen, per table (shared by the models of one table definition). */
const texts = new ShapeCache<string>()

/**
 * The SQL text of a statement shape: (table, kind, column set, fix-up or not, upsert spec, one row or
 * any number: see `RowsForm`). The text depends on nothing else, so it is built once per shape and
 * table definition and then looked up.
 */
export function statementSql(
  table: TableModel,
  kind: StatementKind,
  columns: readonly string[],
  fixup: boolean,
  upsert: UpsertSpec | undefined,
  form: RowsForm = 'rows',
  rowCount = 0,
): string {
  // Rows supplying no column: the text holds their count (see `insertSql`), built each time.
  if (columns.length === 0 && kind === 'insert' && form === 'rows')
    return insertSql(table, columns, [], form, [], rowCount)
  const lead = LEADS[kind][(fixup ? 2 : 0) + (form === 'row' ? 1 : 0)]!
  if (upsert !== undefined) return cachedSql(table, lead, kind, columns, fixup, upsert, form)
  // Found again by the column names themselves (interned texts, hashed once), without joining them
  // into a new text per statement and flush.
  const root = shapesOf(table)
  let node = step(root, lead)
  for (let i = 0; i < columns.length; i++) node = step(root, columns[i]!, node)
  node.text ??= cachedSql(table, lead, kind, columns, fixup, upsert, form)
  return node.text
}

/** {@link statementSql} through the shape cache shared by the models of one table definition. */
function cachedSql(
  table: TableModel,
  lead: string,
  kind: StatementKind,
  columns: readonly string[],
  fixup: boolean,
  upsert: UpsertSpec | undefined,
  form: RowsForm,
): string {
  // No identifier holds a NUL character, so the joined list names one column list only.
  let id = `${lead}\u0000${columns.join('\u0000')}`
  if (upsert !== undefined)
    id += `\u0001${upsert.conflict.join('\u0000')}\u0001${upsert.update.join('\u0000')}`
  return texts.get(table, id, () => buildSql(table, kind, columns, fixup, upsert, form))
}

/** The start of a shape's id: kind, `!` for a fix-up, `1` for one row (made once, not per statement). */
const LEADS: Readonly<Record<StatementKind, readonly string[]>> = {
  insert: ['insert', 'insert1', 'insert!', 'insert!1'],
  update: ['update', 'update1', 'update!', 'update!1'],
  delete: ['delete', 'delete1', 'delete!', 'delete!1'],
}

/** A statement shape's place in a table's trie: by kind and form, then by each column name in order. */
interface ShapeNode {
  text: string | undefined
  readonly next: Map<string, ShapeNode>
}

/** A table model's trie of shapes, and how many places it holds. */
interface ShapeRoot extends ShapeNode {
  size: number
}

/** Places a table's trie holds at most; past this many it starts afresh. */
const MAX_PLACES = 8_192

/** Per table model, the texts of its plain (not upsert) shapes found so far. */
const shapes = new WeakMap<TableModel, ShapeRoot>()

function shapesOf(table: TableModel): ShapeRoot {
  let root = shapes.get(table)
  if (root === undefined || root.size >= MAX_PLACES) {
    root = { text: undefined, next: new Map(), size: 0 }
    shapes.set(table, root)
  }
  return root
}

/** The place under `from` (the root by default) named `name`, made the first time. */
function step(root: ShapeRoot, name: string, from: ShapeNode = root): ShapeNode {
  let node = from.next.get(name)
  if (node === undefined) {
    node = { text: undefined, next: new Map() }
    from.next.set(name, node)
    root.size++
  }
  return node
}

function buildSql(
  table: TableModel,
  kind: StatementKind,
  columns: readonly string[],
  fixup: boolean,
  upsert: UpsertSpec | undefined,
  form: RowsForm,
): string {
  if (kind === 'insert')
    return insertSql(table, columns, [], form) + (upsert ? onConflictSql(upsert, false, table) : '')
  if (kind === 'update') return updateSql(table, columns, fixup, [], form)
  return deleteSql(table, form)
}

/**
 * The form of a planned statement's SQL: `row` when it writes exactly one row (its parameters are
 * that row's texts), else `rows` (one `text[]` per parameter column).
 */
export function statementForm(statement: Pick<PlannedStatement, 'rowCount'>): RowsForm {
  return statement.rowCount === 1 ? 'row' : 'rows'
}
