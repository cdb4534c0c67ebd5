import type { TableModel } from '../../model/model.ts'
import { type StatementDraft, serverKeyed } from '../draft.ts'
import type { PlannedStatement } from '../types.ts'
import { copiesRows } from './copy-statements.ts'
import { type Returning, type ServerValuesPolicy, statementReturning } from './returning.ts'
import { statementForm, statementSql } from './statement-sql.ts'

/** What decides the form of a plan's statements besides their rows. */
export interface FormOptions {
  /** Which tables read back the values the server fills; undefined: nothing is read back. */
  readonly serverValues?: ServerValuesPolicy | undefined
  /** Inserts of at least this many rows go as COPY (Infinity, the default: never). */
  readonly copyRows?: number | undefined
}

/** A draft's statement without its rows: what decides its SQL, what it reads back, whether it is a COPY. */
export type StatementShape = Pick<
  PlannedStatement,
  'kind' | 'table' | 'rowCount' | 'fixup' | 'columns' | 'sql' | 'upsert' | 'sources'
>

/**
 * The shape of the statement `draft` becomes: its SQL text from the (table, kind, column set, one
 * row or several) only, an insert of rows whose key the server fills listing their `sources`.
 */
export function statementShape(draft: StatementDraft): StatementShape {
  const { table, kind, fixup, upsert } = draft
  const rowCount = draft.rows.length
  const columns = kind === 'delete' ? deleteColumns(table) : draft.columns
  const sql = statementSql(table, kind, draft.columns, fixup, upsert, statementForm({ rowCount }), rowCount)
  // A literal per form, each with its own fields in one order: no object spread in, none made empty.
  if (upsert) return { kind, table: table.key, rowCount, fixup, columns, sql, upsert }
  if (serverKeyed(draft))
    return { kind, table: table.key, rowCount, fixup, columns, sql, sources: draft.sources }
  return { kind, table: table.key, rowCount, fixup, columns, sql }
}

/**
 * What the statement of `draft` reads back (see `statementReturning`), and whether it goes as COPY: a
 * plain insert of at least `copyRows` rows into a table COPY treats like INSERT, that reads nothing
 * back and references no upserted row (see `lookup-statement.ts`).
 *
 * Decided the same when a draft is checked (see `checkInsert`) and when it is built.
 */
export function statementForms(
  draft: StatementDraft,
  shape: StatementShape,
  options: FormOptions,
): { readonly returning: Returning | undefined; readonly copy: boolean } {
  const { table, kind } = draft
  const lookups = draft.lookups !== undefined
  const returning =
    kind === 'delete' || lookups ? undefined : statementReturning(table, shape, options.serverValues)
  const copy =
    !lookups &&
    draft.columns.length > 0 &&
    returning === undefined &&
    kind === 'insert' &&
    draft.upsert === undefined &&
    options.copyRows !== undefined &&
    shape.rowCount >= options.copyRows &&
    copiesRows(table, shape.rowCount, options.copyRows)
  return { returning, copy }
}

/** The columns a delete matches: the key, and the version when the table has one. */
function deleteColumns(table: TableModel): string[] {
  return table.versionColumn !== null ? [...table.primaryKey, table.versionColumn] : [...table.primaryKey]
}
