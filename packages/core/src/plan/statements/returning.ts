import type { TableModel } from '../../model/model.ts'
import { insertSql } from '../sql/insert-sql.ts'
import { updateSql } from '../sql/update-sql.ts'
import { upsertReturningSql } from '../sql/upsert-sql.ts'
import type { PlannedStatement } from '../types.ts'
import { ShapeCache } from './shape-cache.ts'
import { statementForm } from './statement-sql.ts'

/** Which tables read back the values the server fills (see `EntityManagerOptions.serverValues`). */
export type ServerValuesPolicy = (table: TableModel) => boolean

/**
 * The columns a statement returns so that its entities hold what the database stored, or none:
 * - an insert: its primary key, then every column its rows do not supply (defaults, identity and
 *   serial columns, generated columns, and the NULL a nullable column without default gets);
 * - an update (fix-ups included): its primary key, then the table's generated columns but the key's,
 *   which the server recomputes from the columns it sets.
 * Deletes return nothing; upserts return every column (see {@link statementReturning}).
 */
export function returnedColumns(
  table: TableModel,
  statement: Pick<PlannedStatement, 'kind' | 'upsert' | 'columns'>,
): string[] {
  if (statement.upsert !== undefined || statement.kind === 'delete') return []
  if (statement.kind === 'insert') return insertReturns(table, statement.columns)
  // A generated key column is returned once, as the key (twice, the server found it ambiguous).
  const filled = table.columns.filter((c) => c.generated && !table.primaryKey.includes(c.name))
  return filled.length === 0 ? [] : [...table.primaryKey, ...filled.map((c) => c.name)]
}

/**
 * What a plain insert (not an upsert) of rows supplying `columns` returns (see
 * {@link returnedColumns}): its primary key, then every column the rows do not supply; none when
 * they supply every one (the key included: a key left to the server is always returned).
 *
 * An entity then holds what the server filled, without a read after the flush.
 */
export function insertReturns(table: TableModel, columns: readonly string[]): string[] {
  const filled = table.columns.filter((c) => !columns.includes(c.name) && !table.primaryKey.includes(c.name))
  const keyLeft = table.primaryKey.some((name) => !columns.includes(name))
  return filled.length === 0 && !keyLeft ? [] : [...table.primaryKey, ...filled.map((c) => c.name)]
}

/** A statement's shape: what decides what it returns and the SQL text that returns it. */
export type StatementShape = Pick<
  PlannedStatement,
  'kind' | 'columns' | 'fixup' | 'upsert' | 'sql' | 'rowCount' | 'sources'
>

/**
 * What a statement of a table returns so that its entities hold what the database stored (see
 * {@link returnedColumns}), with the SQL text that returns it, when the policy selects the table; an
 * insert of rows whose key the server fills (`sources`) returns at least that key whatever the
 * policy: its entities need it; an upsert returns its rows as stored when the policy selects its table
 * (its entity is made of them, see `upsertReturningSql`), else nothing (its entity is detached after
 * the flush: bulk upserts spare returning and matching every row, half their time at 100,000 rows). Undefined when it returns nothing, or without a policy (a plan that
 * reads nothing back).
 */
export function statementReturning(
  table: TableModel,
  shape: StatementShape,
  policy: ServerValuesPolicy | undefined,
): Returning | undefined {
  if (policy === undefined) return undefined
  if (shape.upsert !== undefined) return policy(table) ? upsertReturning(table, shape) : undefined
  const returning = policy(table)
    ? returningOf(table, shape)
    : shape.sources !== undefined
      ? keyReturningOf(table, shape)
      : NOTHING_RETURNED
  return returning === NOTHING_RETURNED ? undefined : returning
}

/** A statement shape's returned columns and the SQL text that returns them. */
export interface Returning {
  readonly returning: readonly string[]
  readonly sql: string
}

const NOTHING_RETURNED: Returning = { returning: [], sql: '' }

/**
 * Per table, the returning of each statement shape seen, keyed by the shape's SQL text without
 * `returning` (one text per shape: see `statementSql`), so that a flush looks its statements up instead
 * of building their texts again.
 */
const returnings = new ShapeCache<Returning>()

/** The same for inserts that return their key only (see {@link keyReturningOf}). */
const keyReturnings = new ShapeCache<Returning>()

/** The same for upserts (see {@link upsertReturning}). */
const upsertReturnings = new ShapeCache<Returning>()

/** What an upsert returns: each row as stored, every column. */
function upsertReturning(table: TableModel, statement: StatementShape): Returning {
  return upsertReturnings.get(table, statement.sql, () =>
    upsertReturningSql(table, statement.columns, statement.upsert!, statementForm(statement)),
  )
}

/** What an insert of rows whose key the server fills returns when its table reads nothing else back. */
function keyReturningOf(table: TableModel, statement: StatementShape): Returning {
  return keyReturnings.get(table, statement.sql, () => ({
    returning: [...table.primaryKey],
    sql: insertSql(
      table,
      statement.columns,
      table.primaryKey,
      statementForm(statement),
      [],
      statement.rowCount,
    ),
  }))
}

/** What a statement returns when its table reads back what the server fills (looked up: once per statement). */
function returningOf(table: TableModel, statement: StatementShape): Returning {
  return (
    returnings.find(table, statement.sql) ??
    returnings.keep(table, statement.sql, madeReturning(table, statement))
  )
}

/** {@link returningOf} made, the first time its shape is seen. */
function madeReturning(table: TableModel, statement: StatementShape): Returning {
  const returning = returnedColumns(table, statement)
  if (returning.length === 0) return NOTHING_RETURNED
  const form = statementForm(statement)
  return {
    returning,
    sql:
      statement.kind === 'insert'
        ? insertSql(table, statement.columns, returning, form, [], statement.rowCount)
        : updateSql(table, statement.columns, statement.fixup, returning, form),
  }
}
