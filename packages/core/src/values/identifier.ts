import { PipeflushError } from '../errors.ts'
import { describeValue } from './location.ts'
import { textProblem } from './text.ts'

/**
 * A double-quoted SQL identifier: `"` doubled inside. Rejects empty names and names PostgreSQL cannot
 * hold (NUL characters, lone surrogates) with `INVALID_VALUE`. Names are not truncated: PostgreSQL
 * truncates identifiers longer than 63 bytes itself.
 *
 * @example
 * quoteIdentifier('my "table"') // '"my ""table"""'
 */
export function quoteIdentifier(name: string): string {
  if (typeof name !== 'string' || name === '') {
    throw new PipeflushError(
      'INVALID_VALUE',
      `an identifier must be a non-empty string, not ${describeValue(name)}`,
    )
  }
  const why = textProblem(name)
  if (why !== undefined)
    throw new PipeflushError('INVALID_VALUE', `the identifier ${describeValue(name)} ${why}`)
  return `"${name.replace(/"/g, '""')}"`
}
