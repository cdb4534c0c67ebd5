export { formatPlan, planStatements } from './format-plan.ts'
export { planFlush } from './plan-flush.ts'
export { deleteSql } from './sql/delete-sql.ts'
export { insertSql } from './sql/insert-sql.ts'
export { ROW_COUNT_COLUMN } from './sql/row-check-sql.ts'
export { updateSql } from './sql/update-sql.ts'
export { parseStaleError, type StaleRows, staleStatementKeys } from './stale-check.ts'
export type {
  ChangeSet,
  DeleteChange,
  FlushPlan,
  InsertChange,
  PlannedStatement,
  RowValues,
  StatementKind,
  UpdateChange,
} from './types.ts'
