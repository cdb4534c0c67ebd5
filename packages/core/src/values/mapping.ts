import type { ColumnModel } from '../model/model.ts'
import { describeWritten, ValueProblem } from './location.ts'

/**
 * The value pipeflush validates and encodes for `value` of `column`: what the column's mapping (see
 * `ColumnModel.mapping`) writes for it, or `value` itself. What the mapping throws is a value problem
 * (`INVALID_VALUE` once located).
 *
 * Every value the application gives passes here before its type's codec sees it.
 */
export function storedValue(value: unknown, column: ColumnModel): unknown {
  const mapping = column.mapping
  if (mapping === undefined) return value
  try {
    return mapping.write(value)
  } catch (e) {
    if (e instanceof ValueProblem) throw e
    throw new ValueProblem(
      `${describeWritten(value)} cannot be written to the column: ${reason(e)}`,
      value,
      e,
    )
  }
}

/**
 * The application's value of a (non-null) value pipeflush decoded from `column`: what the column's
 * mapping reads of it, or `value` itself. What the mapping throws is a value problem.
 */
export function applicationValue(value: unknown, column: ColumnModel): unknown {
  const mapping = column.mapping
  if (mapping === undefined) return value
  try {
    return mapping.read(value)
  } catch (e) {
    if (e instanceof ValueProblem) throw e
    throw new ValueProblem(`${describeWritten(value)} cannot be read from the column: ${reason(e)}`, value, e)
  }
}

/**
 * Version `n` of a row as its version `column` holds it, as a read of the row gives it: in the form
 * pipeflush decodes the column's type in (the decimal text for int8 and numeric, a number otherwise),
 * or what the column's mapping reads of that. A Drizzle `bigint({ mode: 'bigint' })` version holds
 * `2n`, as read; an int8 version without mapping `'2'`.
 *
 * @example
 * versionValue(2, int8ColumnMappedToBigint) // 2n
 */
export function versionValue(n: number, column: ColumnModel): unknown {
  // As a read gives it: an int8 or numeric is its decimal text (exact), a smaller number a number.
  const decoded = column.type === 'int8' || column.type === 'numeric' ? String(n) : n
  return column.mapping === undefined ? decoded : applicationValue(decoded, column)
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
