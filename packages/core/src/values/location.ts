import { errors, type PipeflushError } from '../errors.ts'
import type { ColumnModel } from '../model/model.ts'

/**
 * Where a value belongs, for error messages: the table key and, when known, the row's primary key.
 *
 * @example
 * encodeValue(price, column, { table: 'book', key: { id: 7 } })
 * // book.price (row id=7): NaN is not a valid numeric
 */
export interface ValueLocation {
  readonly table: string
  /**
   * The row's primary key: a record by column (`{ id: 7 }`, printed `id=7`), a single value (printed
   * `key=7`) or an array for composite keys. Leave it undefined for a new row whose key is not known.
   */
  readonly key?: unknown
  /**
   * What the value is when it is not a column of a row the message can name (`the key given to load`,
   * `a row read`): shown in place of the row.
   */
  readonly what?: string | undefined
}

/**
 * Thrown by the per-type codecs with a message that does not yet name the table, column and row;
 * {@link encodeValue}, {@link decodeValue} and the key functions turn it into a {@link PipeflushError}.
 */
export class ValueProblem extends Error {
  /** The value at fault, kept on the error pipeflush throws (its message never shows a written value). */
  readonly value: unknown
  /** What the application's own code threw (a column mapping's), kept as the `INVALID_VALUE`'s cause. */
  readonly thrown: unknown
  constructor(message: string, value?: unknown, thrown?: unknown) {
    super(message)
    this.name = 'ValueProblem'
    this.value = value
    this.thrown = thrown
  }
}

/** Throws a {@link ValueProblem} about `value` (a message made with {@link describeWritten}). */
export function problem(message: string, value?: unknown): never {
  throw new ValueProblem(message, value)
}

/** The `INVALID_VALUE` error for `column` at `at`, with a message naming table, column and row. */
export function invalidValue(
  column: Pick<ColumnModel, 'name'>,
  at: ValueLocation | undefined,
  message: string,
  value?: unknown,
  cause?: unknown,
): PipeflushError {
  const where =
    at === undefined
      ? `column ${column.name}`
      : `${at.table}.${column.name} (${at.what ?? describeRow(at.key)})`
  return errors.invalidValue(`${where}: ${message}`, {
    table: at?.table,
    column: column.name,
    keys: at === undefined || at.key === undefined ? undefined : [keyValue(at.key)],
    value,
    cause,
  })
}

/**
 * A location's key as every error's `keys` holds one: a single value, or an array for a composite
 * key (a key by column, `{ id: 7 }`, is `7`; `{ a: 1, b: 2 }` is `[1, 2]`).
 */
function keyValue(key: unknown): unknown {
  if (typeof key !== 'object' || key === null || Object.getPrototypeOf(key) !== Object.prototype) return key
  const values = Object.values(key)
  return values.length === 1 ? values[0] : values
}

/**
 * What a caught error becomes at `at`: a {@link ValueProblem} the `INVALID_VALUE` error naming table,
 * column and row; anything else itself.
 *
 * A codec knows what is wrong with a value but not where it is; the message needs both.
 */
export function locatedError(
  e: unknown,
  column: Pick<ColumnModel, 'name'>,
  at: ValueLocation | undefined,
): unknown {
  return e instanceof ValueProblem ? invalidValue(column, at, e.message, e.value, e.thrown) : e
}

/** Runs `fn`, turning a {@link ValueProblem} into an `INVALID_VALUE` {@link PipeflushError}. */
export function withLocation<T>(
  column: Pick<ColumnModel, 'name'>,
  at: ValueLocation | undefined,
  fn: () => T,
): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof ValueProblem) throw invalidValue(column, at, e.message, e.value, e.thrown)
    throw e
  }
}

/** `row id=7`, `row key=7`, `row key=(1, a string)` or `new row` (see {@link describeKey}). */
export function describeRow(key: unknown): string {
  if (key === undefined) return 'new row'
  return `row ${describeKeyValue(key)}`
}

/**
 * A row's key for messages, as {@link describeRow} shows it after `row`: `id=7`, `key=7`,
 * `key=(1, a string of 5 characters)` (each part by {@link describeKey}).
 */
export function describeKeyValue(key: unknown): string {
  if (Array.isArray(key)) return `key=(${key.map(describeKey).join(', ')})`
  if (key !== null && typeof key === 'object' && !(key instanceof Date) && !(key instanceof Uint8Array)) {
    return Object.entries(key)
      .map(([k, v]) => `${k}=${describeKey(v)}`)
      .join(', ')
  }
  return `key=${describeKey(key)}`
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A key value for messages: integers and uuids as they are (they name rows, not people); any other
 * key (a text, a date...) only by its kind, as {@link describeWritten} (an e-mail address or a card
 * number can be a key). The value itself stays on the error (`keys`).
 */
export function describeKey(value: unknown): string {
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value)))
    return String(value)
  if (typeof value === 'string' && (/^-?\d{1,19}$/.test(value) || UUID_TEXT.test(value))) return `'${value}'`
  return describeWritten(value)
}

/**
 * A value the application wrote, for messages, without the value: its kind (`a string of 19
 * characters`, `a number`, `a bigint`, `a Date`...), except what is not data (`undefined`, `null`,
 * booleans, `NaN`, `Infinity`, `-0`, an invalid Date). Error messages and stacks go to logs and error
 * trackers: the value itself stays on the error (`value`, `keys`), and the `errorValues` option of
 * `connect` adds it to messages.
 */
export function describeWritten(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value === ''
        ? 'an empty string'
        : `a string of ${value.length} character${value.length === 1 ? '' : 's'}`
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? 'a number' : describeValue(value)
    case 'bigint':
      return 'a bigint'
  }
  if (value instanceof Date && !Number.isNaN(value.getTime())) return 'a Date'
  return describeValue(value)
}

const MAX_SHOWN = 40

/** A short, safe rendering of any value for messages: `'abc'`, `5n`, `NaN`, `a Map`, `-0`. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string': {
      const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}...` : value
      return `'${JSON.stringify(shown).slice(1, -1).replace(/'/g, "\\'")}'`
    }
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value)
    case 'bigint':
      return `${value}n`
    case 'boolean':
    case 'undefined':
      return String(value)
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
  }
  if (value === null) return 'null'
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? 'an invalid Date' : `Date ${value.toISOString()}`
  if (value instanceof Uint8Array) return `${value.byteLength} bytes`
  if (Array.isArray(value)) return `an array of ${value.length}`
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto === Object.prototype || proto === null) return 'an object'
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === 'string' && name !== '' ? `a ${name}` : 'an object'
}

/**
 * A canonical key text (see `rowKey`: one value's text, or a JSON array of them for a composite key)
 * for messages, each part as {@link describeKey} shows it.
 *
 * Keys held as canonical texts (the identity map's) show in messages no more than describeKey shows.
 */
export function describeKeyText(key: string): string {
  if (key.startsWith('[')) {
    try {
      const parts = JSON.parse(key) as unknown
      if (Array.isArray(parts))
        return `(${parts.map((p) => (typeof p === 'string' ? describeOne(p) : describeKey(p))).join(', ')})`
    } catch {
      // not a composite key's text: a single value that starts with a bracket
    }
  }
  return describeOne(key)
}

/** One key value's text: as it is when an integer or a uuid, else its kind. */
function describeOne(text: string): string {
  return /^-?\d{1,19}$/.test(text) || UUID_TEXT.test(text) ? text : describeWritten(text)
}
