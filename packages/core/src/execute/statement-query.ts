import type postgres from 'postgres'
import type { PlannedStatement } from '../plan/types.ts'
import { textArrayParam } from '../values/index.ts'

type Runner = Pick<postgres.Sql, 'unsafe'>

/**
 * The postgres.js query of a planned statement: prepared (trap 1: `unsafe` with parameters must not
 * use the unnamed-statement path), every parameter typed `text[]` whatever its content (trap 4), so
 * the statement's signature is the same on every flush and stays warm.
 */
export function statementQuery(
  runner: Runner,
  statement: PlannedStatement,
): postgres.PendingQuery<postgres.Row[]> {
  const params = statement.params.map((p) => textArrayParam(p)) as postgres.ParameterOrJSON<never>[]
  return runner.unsafe(statement.sql, params, { prepare: true })
}
