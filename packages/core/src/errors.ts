// The one place every error is made, each with its stable code, and the one entry importers use: the
// class, its codes and helpers are in `errors/pipeflush-error.ts`, the named constructors in one file
// a subject under `errors/` (a flush and its connections, configuration, the schema, entities and
// keys, arguments and values), assembled here into `errors`.
import { configErrors } from './errors/config-errors.ts'
import { entityErrors } from './errors/entity-errors.ts'
import { flushErrors } from './errors/flush-errors.ts'
import { inputErrors } from './errors/input-errors.ts'
import { schemaErrors } from './errors/schema-errors.ts'

export type { ErrorCode, PipeflushErrorDetails } from './errors/pipeflush-error.ts'
export { isPipeflushError, PipeflushError, serverMessage, withValuesShown } from './errors/pipeflush-error.ts'
export { redactError, redactSecrets } from './errors/redact.ts'

/**
 * Named constructors of the errors raised in more than one place, so each condition has one code and
 * one wording.
 */
export const errors = {
  ...flushErrors,
  ...configErrors,
  ...schemaErrors,
  ...entityErrors,
  ...inputErrors,
} as const
