import { type ErrorCode, errors, type PipeflushErrorDetails } from './errors.ts'
import { describeValue } from './values/location.ts'

/**
 * `value` as an object of named values (column values, a where, options), or a `PipeflushError`
 * with `code` naming `what`: arrays, Maps, Sets, Dates, byte arrays and non-objects are refused
 * before anything reads them.
 *
 * Plain JavaScript can pass anything: a coded error now beats a TypeError deep in a flush.
 */
export function recordArgument(
  value: unknown,
  what: string,
  code: Extract<ErrorCode, 'INVALID_VALUE' | 'INVALID_CONFIG'>,
  details: PipeflushErrorDetails = {},
): Readonly<Record<string, unknown>> {
  if (!isRecord(value)) throw errors.notAnObject(code, what, describeValue(value), details)
  return value
}

/**
 * Whether `value` is an object of named values (not null, an array, a Map, a Set, a Date or binary
 * data): what {@link recordArgument} accepts, for callers that build its message only on failure.
 */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Map) &&
    !(value instanceof Set) &&
    !(value instanceof Date) &&
    !ArrayBuffer.isView(value)
  )
}

/**
 * `value` as an array of strings (column names), or `code` naming `what`.
 *
 * As {@link recordArgument}: a coded error before anything iterates a wrong value.
 */
export function stringsArgument(
  value: unknown,
  what: string,
  code: Extract<ErrorCode, 'INVALID_VALUE' | 'INVALID_CONFIG'>,
  details: PipeflushErrorDetails = {},
): readonly string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw errors.notColumnNames(code, what, describeValue(value), details)
  }
  return value as readonly string[]
}

/**
 * Checks that `options` names no option but `names`: a misspelled one (`{ updates: [...] }`, `{ lok:
 * 'update' }`) is `code` naming it and the options there are, before anything is sent, not dropped
 * (an upsert would overwrite every column given, a read take no lock).
 *
 * @example
 * knownOptions({ limt: 5 }, ['with', 'lock', 'orderBy', 'limit', 'offset'], 'find', 'INVALID_VALUE')
 * // throws: find: unknown option "limt"; the options are with, lock, orderBy, limit, offset.
 */
export function knownOptions(
  options: object,
  names: readonly string[],
  what: string,
  code: Extract<ErrorCode, 'INVALID_VALUE' | 'INVALID_CONFIG'>,
  details: PipeflushErrorDetails = {},
): void {
  for (const name in options) {
    if (!Object.hasOwn(options, name) || names.includes(name)) continue
    throw errors.unknownOption(code, what, name, names, details)
  }
}
