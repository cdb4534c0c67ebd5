import type { SchemaModel, TableModel } from '../schema/model.ts'
import { copySql } from './sql/copy-sql.ts'
import type { FlushPlan, PlannedStatement } from './types.ts'

/**
 * Whether a plain insert of `rows` rows into `table` that returns nothing goes as COPY: at least
 * `minRows` rows, into a table COPY treats like INSERT (`TableModel.copyable`).
 *
 * @example
 * copiesRows(big, 5_000, 1_000) // true
 */
export function copiesRows(table: TableModel, rows: number, minRows: number): boolean {
  return table.copyable && rows >= minRows
}

/** Whether `statement` goes as `COPY ... FROM STDIN`: a plain insert (not an upsert) that returns nothing, see {@link copiesRows}. */
function copies(schema: SchemaModel, statement: PlannedStatement, minRows: number): boolean {
  if (statement.kind !== 'insert' || statement.upsert !== undefined || statement.returning !== undefined)
    return false
  const table = schema.tables.get(statement.table)
  return table !== undefined && copiesRows(table, statement.rowCount, minRows)
}

/**
 * `plan` with each insert of at least `minRows` rows that COPY can take sent as `COPY ... FROM STDIN`
 * instead (`copy: true`, the same columns and row texts): the server stores large batches of rows
 * about twice as fast that way as through INSERT's unnest (it writes them a page at a time), and
 * parses no array. Same waves, same order. `minRows` Infinity: `plan` itself.
 *
 * @example
 * withCopies(plan, schema, 10_000).waves[0]?.[0]?.sql // 'copy "public"."big" ("id", "v") from stdin'
 */
export function withCopies(plan: FlushPlan, schema: SchemaModel, minRows: number): FlushPlan {
  if (minRows === Number.POSITIVE_INFINITY) return plan
  let changed = false
  const waves = plan.waves.map((wave) =>
    wave.map((statement) => {
      if (!copies(schema, statement, minRows)) return statement
      changed = true
      const table = schema.tables.get(statement.table)!
      return { ...statement, sql: copySql(table, statement.columns), copy: true as const }
    }),
  )
  return changed ? { waves } : plan
}
