import type { ForeignKeyModel, SchemaModel } from '../model/model.ts'
import type { PlannedStatement } from '../plan/types.ts'

/** What the server said of a statement it rejected, as far as telling which one it was goes. */
export interface RejectionFacts {
  readonly sqlState?: string | undefined
  /** The schema of `table`, when the server named it. */
  readonly schema?: string | undefined
  readonly table?: string | undefined
  readonly column?: string | undefined
  /** Its detail: `Key (email)=(a@x) already exists.`, `Key (author_id)=(9) is not present in ...`. */
  readonly detail?: string | undefined
  /** Its context (see `DriverError.where`). */
  readonly where?: string | undefined
  /** The constraint it names (a foreign key of `table` for a row still referenced). */
  readonly constraint?: string | undefined
}

/**
 * The statement a foreign key's ON DELETE or ON UPDATE action runs on the referencing table (the
 * server's own text, its comparisons written `OPERATOR(pg_catalog.=)`), as a rejection's context
 * names it: the table the rejection names is that action's, not a statement's of the message.
 */
const REFERENTIAL_ACTION = /^SQL statement "(?:UPDATE|DELETE FROM) .*OPERATOR\(pg_catalog\.=\)/

/**
 * The statement among `statements` (the statements of one message, in order) that the server's
 * rejection is about, when the server did not say its place in the message: the message's only
 * statement, unless the server named another table (a timeout, a deadlock, a trigger's exception name
 * none); an ON CONFLICT that no constraint matches, the first upsert; else, when the server named its
 * table, the only statement on that table; else, of several,
 * those that could have caused it (an insert or an update, for a value refused: a NULL, a check, a
 * duplicate, a missing reference), of which the one that could have written what the rejection names
 * (the key columns of its detail: an insert, or an update setting one of them; of those, the one whose
 * rows hold the key's values), else for a NULL refused the one with a NULL in that column, else one
 * writing the column it names, else the first. Undefined when no statement is on the table.
 *
 * A rejection raised in a foreign key's action (its context names the statement the action ran: a
 * cascade, SET NULL or SET DEFAULT the server refused on the referencing table) is the message's only
 * delete, else its only update of another table (an ON UPDATE action); else none is named.
 *
 * A row still referenced (`Key (id)=(5) is still referenced from table "child"`) is the exception: the
 * server names the referencing table, but the statement that failed removed the referenced row (a
 * delete, the one whose rows hold the key first) or changed its key (an update setting one of the
 * key's columns), on another table or the same: on the table its foreign key references, when
 * `schema` knows that constraint (another table's delete may hold the same key in a column of the
 * same name: `comment.id` 5 beside `article.id` 5).
 *
 * @example
 * // an update of t's name and an insert into t, the insert's id taken:
 * rejectedStatement(statements, { table: 't', detail: 'Key (id)=(2) already exists.' }) // the insert
 */
export function rejectedStatement(
  statements: readonly (PlannedStatement | undefined)[],
  facts: RejectionFacts,
  schema?: SchemaModel,
): PlannedStatement | undefined {
  // The server names columns as the database does: statements are looked at by those names.
  if (schema === undefined) return rejectedAmong(statements, facts, schema)
  const original = new Map<PlannedStatement, PlannedStatement>()
  const named = statements.map((s) => {
    if (s === undefined) return s
    const view = inDatabaseNames(s, schema)
    original.set(view, s)
    return view
  })
  const found = rejectedAmong(named, facts, schema)
  return found === undefined ? undefined : original.get(found)
}

/**
 * `s` with its columns named as the database names them, where its table's model names them
 * otherwise (see `ColumnModel.dbName`); `s` itself where it does not.
 */
function inDatabaseNames(s: PlannedStatement, schema: SchemaModel | undefined): PlannedStatement {
  const table = schema?.tables.get(s.table)
  if (table === undefined || !s.columns.some((c) => table.columnsByName.get(c)?.dbName !== undefined))
    return s
  return { ...s, columns: s.columns.map((c) => table.columnsByName.get(c)?.dbName ?? c) }
}

/** {@link rejectedStatement}, its statements' columns named as the database names them. */
function rejectedAmong(
  statements: readonly (PlannedStatement | undefined)[],
  facts: RejectionFacts,
  schema: SchemaModel | undefined,
): PlannedStatement | undefined {
  const { table } = facts
  const isOn = onTableOf(statements, facts, schema)
  const only = onlyStatement(statements)
  if (facts.where !== undefined && REFERENTIAL_ACTION.test(facts.where)) {
    // A delete's cascade, SET NULL or SET DEFAULT refused (the action may write the delete's own
    // table: a tree's parent key): the message's only delete; without one, an update's ON UPDATE
    // action, the only update on another table.
    const deletes = statements.filter((s) => s?.kind === 'delete')
    if (deletes.length > 0) return deletes.length === 1 ? deletes[0] : undefined
    const updating = statements.filter((s) => s?.kind === 'update' && !isOn(s))
    return updating.length === 1 ? updating[0] : undefined
  }
  if (only !== undefined && (table === undefined || isOn(only))) return only
  // No constraint matches an ON CONFLICT's columns: an upsert's (the server names no table).
  if (facts.sqlState === NO_MATCHING_CONFLICT) return statements.find((s) => s?.upsert !== undefined)
  if (table === undefined) return undefined
  const key = detailKey(facts.detail)
  if (key?.referenced === true) {
    const removing = removingStatement(statements, key, referencedTable(facts, schema))
    if (removing !== undefined) return removing
  }
  const onTable: PlannedStatement[] = []
  for (const s of statements) if (s !== undefined && isOn(s)) onTable.push(s)
  if (onTable.length <= 1) return onTable[0]
  // A value refused (class 22, or a NULL, check, duplicate or missing reference) is an insert's or an
  // update's: a delete writes no value.
  const writing = refusesValue(facts.sqlState) ? onTable.filter((s) => s.kind !== 'delete') : onTable
  const candidates = writing.length > 0 ? writing : onTable
  if (candidates.length === 1) return candidates[0]
  if (key !== undefined) {
    const keyed = candidates.filter((s) => writes(s, key.columns))
    const holding = keyed.find((s) => holdsKey(s, key))
    if (holding !== undefined) return holding
    if (keyed.length > 0) return keyed[0]
  }
  const column = facts.column
  if (column !== undefined) {
    if (facts.sqlState === NOT_NULL) {
      const nulling = candidates.find((s) => s.kind !== 'delete' && holdsNull(s, column))
      if (nulling !== undefined) return nulling
    }
    const setting = candidates.find((s) => s.kind !== 'delete' && s.columns.includes(column))
    if (setting !== undefined) return setting
  }
  return candidates[0]
}

/**
 * The keys of the rows of `statement` that the server's rejection is about: those holding the key its
 * detail names (a duplicate, a reference to a row not there, a row still referenced), or for a NULL
 * refused those with a NULL in the column it names. Every row's key when none can be told apart (a
 * check, a detail of another form, a value printed otherwise than it was sent) or none holds it; a
 * one-row statement's key as it is. `schema` tells the columns' names in the database, where its
 * tables name them otherwise.
 *
 * @example
 * // an insert of rows 1, 2 and 3, of which row 2's email is taken:
 * keysAtFault(insert, { sqlState: '23505', detail: 'Key (email)=(b@x) already exists.' }) // [2]
 */
export function keysAtFault(
  rejected: PlannedStatement,
  facts: RejectionFacts,
  schema?: SchemaModel,
): readonly unknown[] {
  if (rejected.rowCount < 2) return rejected.keys
  // The server names columns as the database does.
  const statement = inDatabaseNames(rejected, schema)
  const key = detailKey(facts.detail)
  let rows: number[] = []
  if (key !== undefined) rows = rowsHoldingKey(statement, key)
  else if (facts.sqlState === NOT_NULL && facts.column !== undefined && statement.kind !== 'delete')
    rows = rowsHoldingNull(statement, facts.column)
  if (rows.length === 0 || rows.length === statement.rowCount) return statement.keys
  return rows.map((r) => statement.keys[r])
}

/** SQLSTATE not_null_violation. */
const NOT_NULL = '23502'
/** SQLSTATE invalid_column_reference: what an ON CONFLICT matching no unique constraint or index gets. */
const NO_MATCHING_CONFLICT = '42P10'

/**
 * Whether a rejection of SQLSTATE `sqlState` refuses a value written (a data exception, a NULL, a check,
 * a duplicate, a missing reference): never a delete's. A row still referenced (also 23503) is told
 * apart by its detail first (see {@link removingStatement}).
 */
function refusesValue(sqlState: string | undefined): boolean {
  if (sqlState === undefined) return false
  return sqlState.startsWith('22') || ['23502', '23503', '23505', '23514'].includes(sqlState)
}

/**
 * Whether a statement is on the table the server named (`facts.table`, unqualified, in
 * `facts.schema`): by its table's name in the database where `model` knows the table (its key may
 * be the application's name: `blogPost` for `blog_post`); else told by its table's key (the bare
 * name in the first schema of the search path, else `schema.table`): the key `schema.table` when
 * one of `statements` has it, else the bare name; without the schema, either.
 */
function onTableOf(
  statements: readonly (PlannedStatement | undefined)[],
  facts: RejectionFacts,
  model?: SchemaModel,
): (s: PlannedStatement) => boolean {
  const { table, schema } = facts
  if (table === undefined) return () => false
  if (model !== undefined) {
    const known = onTableInModel(model, table, schema)
    return (s) => known(s.table) ?? onKey(statements, table, schema)(s)
  }
  return onKey(statements, table, schema)
}

/**
 * Whether the table keyed `key` in `model` is the table `table` (in `schema`, when given) of the
 * database; undefined for a key `model` does not have.
 */
function onTableInModel(
  model: SchemaModel,
  table: string,
  schema: string | undefined,
): (key: string) => boolean | undefined {
  return (key) => {
    const t = model.tables.get(key)
    if (t === undefined) return undefined
    return t.name === table && (schema === undefined || t.schema === schema)
  }
}

/** {@link onTableOf} by the statements' keys alone. */
function onKey(
  statements: readonly (PlannedStatement | undefined)[],
  table: string,
  schema: string | undefined,
): (s: PlannedStatement) => boolean {
  if (schema === undefined) return (s) => s.table === table || s.table.endsWith(`.${table}`)
  const qualified = `${schema}.${table}`
  if (statements.some((s) => s?.table === qualified)) return (s) => s.table === qualified
  return (s) => s.table === table
}

/** The one planned statement of `statements`, if there is exactly one. */
function onlyStatement(statements: readonly (PlannedStatement | undefined)[]): PlannedStatement | undefined {
  let only: PlannedStatement | undefined
  for (const s of statements) {
    if (s === undefined) continue
    if (only !== undefined) return undefined
    only = s
  }
  return only
}

/**
 * Whether some row of `s` (an insert or an update) writes NULL to `column`: an update's parameters
 * are its key's parts, then its set columns.
 */
function holdsNull(s: PlannedStatement, column: string): boolean {
  return rowsHoldingNull(s, column).length > 0
}

/** The rows of `s` (an insert or an update) that write NULL to `column`, by their place in `s`. */
function rowsHoldingNull(s: PlannedStatement, column: string): number[] {
  const i = s.columns.indexOf(column)
  const values = i < 0 ? undefined : s.params[paramOffset(s) + i]
  const rows: number[] = []
  if (values === undefined) return rows
  for (let r = 0; r < s.rowCount; r++) if (values[r] === null) rows.push(r)
  return rows
}

/**
 * Where `s`'s column parameters begin: an insert's and a delete's parameters are its columns (a
 * delete's: its key's parts, then the version it expects); an update's are its key's parts, then its
 * set columns (then the version it expects).
 */
function paramOffset(s: PlannedStatement): number {
  if (s.kind !== 'update') return 0
  const first = s.keys[0]
  return Array.isArray(first) ? first.length : 1
}

/** A key a rejection's detail names: its columns and their values as the server printed them. */
interface DetailKey {
  readonly columns: readonly string[]
  /** The values, one per column; undefined when they could not be told apart (a comma inside one). */
  readonly values: readonly string[] | undefined
  /** Whether the detail says the key is still referenced (a row removed or rekeyed under a reference). */
  readonly referenced: boolean
}

/**
 * The key of the table the foreign key `facts.constraint` of the referencing table `facts.table`
 * references, when `schema` has that table and constraint.
 */
function referencedTable(facts: RejectionFacts, schema: SchemaModel | undefined): string | undefined {
  return namedForeignKey(facts, schema)?.target
}

/**
 * Whether the rejection is a foreign key's checked as the transaction ends (`DEFERRABLE INITIALLY
 * DEFERRED`): the server reports it once every statement ran, before the last one's completion,
 * so the count of completed statements points at the last one, which need not be the one at fault.
 */
export function deferredForeignKey(facts: RejectionFacts, schema: SchemaModel | undefined): boolean {
  return (
    facts.sqlState === FOREIGN_KEY_VIOLATION && namedForeignKey(facts, schema)?.initiallyDeferred === true
  )
}

const FOREIGN_KEY_VIOLATION = '23503'

/** The foreign key a rejection names: its constraint on the table it names, as `schema` knows it. */
function namedForeignKey(
  facts: RejectionFacts,
  schema: SchemaModel | undefined,
): ForeignKeyModel | undefined {
  const { table, constraint } = facts
  if (schema === undefined || table === undefined || constraint === undefined) return undefined
  // A foreign key referencing a partitioned table has a copy per partition, which the server names
  // (`star_post_id_fkey_1`, `star_post_id_fkey1`): the key it was copied from is the one read.
  const copiedFrom = constraint.replace(/_?\d+$/, '')
  for (const t of schema.tables.values()) {
    if (t.name !== table || (facts.schema !== undefined && t.schema !== facts.schema)) continue
    const fk =
      t.foreignKeys.find((f) => f.name === constraint) ?? t.foreignKeys.find((f) => f.name === copiedFrom)
    if (fk !== undefined) return fk
  }
  return undefined
}

/**
 * The statement that removed or rekeyed a row still referenced (see {@link rejectedStatement}): of the
 * deletes, and the updates setting a column of the key, the one on the referenced table (`target`,
 * when known) whose rows hold the key's values, else the first of any table holding them, else the
 * first. Undefined when there is none.
 */
function removingStatement(
  statements: readonly (PlannedStatement | undefined)[],
  key: DetailKey,
  target: string | undefined,
): PlannedStatement | undefined {
  // Of the referenced table's, the one holding the key; none holding it (a trigger removed the row),
  // as without the table.
  if (target !== undefined) {
    const holding = statements.find((s) => s?.table === target && removes(s, key) && holdsKey(s, key))
    if (holding !== undefined) return holding
  }
  let first: PlannedStatement | undefined
  for (const s of statements) {
    if (s === undefined) continue
    if (!removes(s, key)) continue
    if (holdsKey(s, key)) return s
    first ??= s
  }
  return first
}

/** Whether `s` could have removed or rekeyed a row of `key`: a delete, or an update setting one of its columns. */
function removes(s: PlannedStatement, key: DetailKey): boolean {
  return s.kind === 'delete' || (s.kind === 'update' && writes(s, key.columns))
}

/** The key of `Key (a, b)=(1, x) ...`, or undefined for a detail of another form. */
function detailKey(detail: string | undefined): DetailKey | undefined {
  const m =
    detail === undefined
      ? null
      : /^Key \((.+?)\)=\((.*)\) (already exists|is not present|is still referenced)/s.exec(detail)
  if (m === null) return undefined
  const columns = m[1]!.split(', ').map(unquote)
  const values = columns.length === 1 ? [m[2]!] : m[2]!.split(', ')
  return {
    columns,
    values: values.length === columns.length ? values : undefined,
    referenced: m[3] === 'is still referenced',
  }
}

/** A column name as the server prints it in a detail (double-quoted when it must be). */
function unquote(name: string): string {
  return name.length > 1 && name.startsWith('"') && name.endsWith('"')
    ? name.slice(1, -1).replaceAll('""', '"')
    : name
}

/** Whether `s` could have written `columns`: an insert does (its defaults too), an update setting one. */
function writes(s: PlannedStatement, columns: readonly string[]): boolean {
  if (s.kind === 'insert') return true
  return s.kind === 'update' && columns.some((c) => s.columns.includes(c))
}

/** Whether some row of `s` holds the key's values (as texts) in its columns (see {@link paramOffset}). */
function holdsKey(s: PlannedStatement, key: DetailKey): boolean {
  return rowsHoldingKey(s, key).length > 0
}

/** The rows of `s` whose columns hold the key's values (as texts), by their place in `s`. */
function rowsHoldingKey(s: PlannedStatement, key: DetailKey): number[] {
  const values = key.values
  const rows: number[] = []
  if (values === undefined) return rows
  const offset = paramOffset(s)
  const at = key.columns.map((c) => s.columns.indexOf(c))
  if (at.some((i) => i < 0)) return rows
  for (let r = 0; r < s.rowCount; r++)
    if (at.every((i, k) => s.params[offset + i]?.[r] === values[k])) rows.push(r)
  return rows
}
