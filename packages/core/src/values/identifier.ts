import { errors } from '../errors.ts'
import { describeValue } from './location.ts'
import { textProblem } from './text.ts'

/**
 * A double-quoted SQL identifier: `"` doubled inside. Rejects empty names and names PostgreSQL cannot
 * hold (NUL characters, lone surrogates) with `INVALID_VALUE`. Names are not truncated: PostgreSQL
 * truncates identifiers longer than 63 bytes itself.
 *
 * Names come from the schema and the application: quoted, any name is safe in SQL text.
 */
export function quoteIdentifier(name: string): string {
  if (typeof name !== 'string' || name === '') {
    throw errors.identifierNotString(describeValue(name))
  }
  const why = textProblem(name)
  if (why !== undefined) throw errors.invalidIdentifier(describeValue(name), why)
  return `"${name.replace(/"/g, '""')}"`
}
