import type { TableModel } from '../../model/model.ts'
import { perTable } from '../../schema/per-table.ts'
import type { UpsertSpec } from '../types.ts'

/**
 * The columns of `table` whose values the planner reads again (see `StatementDraft.values`): its
 * foreign-key and unique columns, but its key (read from the draft's keys); an upsert's conflict
 * columns besides.
 */
export function capturedColumns(table: TableModel, upsert: UpsertSpec | undefined): ReadonlySet<string> {
  const columns = foreignKeyAndUniqueColumns(table)
  return upsert === undefined ? columns : new Set([...columns, ...upsert.conflict])
}

const foreignKeyAndUniqueColumns = perTable(
  (table): ReadonlySet<string> =>
    new Set([
      ...table.foreignKeys.flatMap((fk) => fk.columns),
      ...table.uniques.flatMap((unique) => unique.columns),
    ]),
)
