import type { ValueMapping } from '@pipeflush/core'
import { is, SQL } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import { shapeCheck } from './value-shapes.ts'

/**
 * Column classes whose values Drizzle gives as pipeflush decodes them (numbers, strings, booleans,
 * the server's text for dates, times, intervals, network and bit types...): no mapping, no cost.
 * Every other class, custom types and classes this list does not know included, goes through its
 * own `mapFromDriverValue` / `mapToDriverValue`.
 */
const AS_CORE: ReadonlySet<string> = new Set([
  'PgBoolean',
  'PgSmallInt',
  'PgInteger',
  'PgSerial',
  'PgSmallSerial',
  'PgReal',
  'PgDoublePrecision',
  'PgNumeric',
  'PgText',
  'PgVarchar',
  'PgUUID',
  'PgEnumColumn',
  'PgEnumObjectColumn',
  'PgDateString',
  'PgTimestampString',
  'PgTime',
  'PgInterval',
  'PgInet',
  'PgCidr',
  'PgMacaddr',
  'PgMacaddr8',
  'PgBinaryVector',
  'PgSparseVector',
])

/**
 * Classes whose values pipeflush's own codec validates and encodes as Drizzle gives them (a number or
 * a bigint for int8, a number or a bigint for numeric, a Date for date, any JSON value for json),
 * read through the column's `mapFromDriverValue`: Drizzle's `mapToDriverValue` of them (a JSON text,
 * an ISO timestamp for a date) is not what pipeflush's codec takes.
 */
const READ_ONLY_MAPPED: ReadonlySet<string> = new Set([
  'PgBigInt53',
  'PgBigInt64',
  'PgBigSerial53',
  'PgBigSerial64',
  'PgNumericNumber',
  'PgNumericBigInt',
  'PgDate',
  'PgJson',
  'PgJsonb',
])

/** Classes of `mode: 'date'` columns: Drizzle's `new Date` of the server's text. */
const DATE_MODE: ReadonlySet<string> = new Set(['PgTimestamp', 'PgDate'])

/**
 * The mapping (see `ValueMapping` of `@pipeflush/core`) between what Drizzle gives for `column` and
 * what pipeflush decodes for its SQL type, or undefined when they are the same values. `sqlType` is
 * the column's SQL type (a custom type's `dataType`). What pipeflush decodes is what Drizzle's
 * drivers hand to `mapFromDriverValue` (see `column-spec.ts` for timestamps, held as text), so an
 * entity equals the row Drizzle's own select gives, but for `infinity` in a `mode: 'date'` column
 * (see {@link withInfinity}). Arrays map element by element, nulls kept.
 *
 * One object per row: the entity holds Drizzle's values themselves.
 */
export function valueMapping(column: PgColumn, sqlType: string, keyPart = false): ValueMapping | undefined {
  if (column.columnType === 'PgArray') {
    const base = valueMapping((column as unknown as { baseColumn: PgColumn }).baseColumn, sqlType)
    return base === undefined ? undefined : elementwise(base)
  }
  if (AS_CORE.has(column.columnType)) return undefined
  const mapping = classMapping(column, sqlType, keyPart)
  return DATE_MODE.has(column.columnType) ? withInfinity(mapping) : mapping
}

/** {@link valueMapping} of a column whose class maps values, through its own functions. */
function classMapping(column: PgColumn, sqlType: string, keyPart: boolean): ValueMapping {
  if (column.columnType === 'PgTimestamp' && keyPart) return timestampMapping(column)
  const read = (value: unknown) => column.mapFromDriverValue(value)
  if (column.columnType === 'PgChar') return { read: padded(column), write: same }
  if (READ_ONLY_MAPPED.has(column.columnType)) return { read, write: same }
  const json = /^\s*jsonb?\s*$/i.test(sqlType)
  const shape = shapeCheck(column)
  return {
    read,
    write(value) {
      shape?.(value)
      const driven = column.mapToDriverValue(value)
      if (is(driven, SQL))
        throw new Error('the column writes an SQL expression, which pipeflush does not send')
      // A JSON text given to the driver is parsed by the server: pipeflush takes the value it stands for.
      return json && typeof driven === 'string' ? (JSON.parse(driven) as unknown) : driven
    },
  }
}

function same(value: unknown): unknown {
  return value
}

/** The time of the largest Date, `new Date(8.64e15)`; the smallest is its negative. */
const LARGEST_DATE_MS = 8.64e15

/**
 * A `mode: 'date'` column's `mapping` that reads `infinity` and `-infinity` as core reads its own
 * timestamps' (the largest and smallest Dates, `new Date(8.64e15)` and `new Date(-8.64e15)`), and
 * writes those Dates back as them. Drizzle's `new Date` of these texts gives an invalid Date, or
 * 2000-01-01 for a timestamp without time zone (its text read with `+0000` appended): neither tells
 * which one the row holds, nor orders as it does. A date past a Date's range stays Drizzle's invalid
 * Date, which core leaves unwritten while unchanged.
 */
function withInfinity(mapping: ValueMapping): ValueMapping {
  return {
    read(value) {
      if (value === 'infinity') return new Date(LARGEST_DATE_MS)
      if (value === '-infinity') return new Date(-LARGEST_DATE_MS)
      return mapping.read(value)
    },
    write(value) {
      const ms = value instanceof Date ? value.getTime() : Number.NaN
      if (ms === LARGEST_DATE_MS) return 'infinity'
      if (ms === -LARGEST_DATE_MS) return '-infinity'
      return mapping.write(value)
    },
  }
}

/**
 * Where `@pipeflush/core` keeps the microseconds a timestamp's Date was read with, beside its
 * milliseconds (`{ ms, us }` under this registered symbol, non-enumerable; core's snapshots copy it).
 */
const SUB_MS = Symbol.for('pipeflush.subMilliseconds')

/** The digits past the second of a timestamp's text: beyond three, microseconds a Date drops. */
const FRACTION = /\.(\d{4,6})/

/**
 * A `timestamp` column of `mode: 'date'` in a primary key: Drizzle's Date of the server's text, which
 * remembers the microseconds it drops as core's own Dates of key columns do; written back unchanged,
 * its text has them again. So a key holding a timestamp with microseconds (`(payment_date,
 * payment_id)`) finds its row.
 */
function timestampMapping(column: PgColumn): ValueMapping {
  return {
    read(value) {
      const date = column.mapFromDriverValue(value)
      if (typeof value !== 'string' || !(date instanceof Date)) return date
      const digits = FRACTION.exec(value)?.[1]
      const us = digits === undefined ? 0 : Number(digits.slice(3).padEnd(3, '0'))
      if (us !== 0) Object.defineProperty(date, SUB_MS, { value: { ms: date.getTime(), us } })
      return date
    },
    write(value) {
      const driven = column.mapToDriverValue(value)
      if (!(value instanceof Date) || typeof driven !== 'string' || !driven.endsWith('Z')) return driven
      const sub = (value as unknown as Record<symbol, { ms: number; us: number } | undefined>)[SUB_MS]
      if (sub === undefined || sub.ms !== value.getTime()) return driven
      return `${driven.slice(0, -1)}${String(sub.us).padStart(3, '0')}Z`
    },
  }
}

/**
 * `char(n)`: the server pads its values to `n` characters and Drizzle gives them padded, where
 * pipeflush reads them as `text` (without the padding). Characters as the server counts them: a
 * character beyond the Basic Multilingual Plane (an emoji) is one, where `padEnd` counts two.
 */
function padded(column: PgColumn): (value: unknown) => unknown {
  const length = (column as unknown as { length?: number }).length ?? 1
  return (value) => {
    if (typeof value !== 'string') return value
    let characters = value.length
    for (let i = 0; i < value.length; i++) {
      const unit = value.charCodeAt(i)
      if (unit >= 0xd800 && unit <= 0xdbff) characters-- // the first half of a surrogate pair
    }
    return characters >= length ? value : value + ' '.repeat(length - characters)
  }
}

function elementwise(base: ValueMapping): ValueMapping {
  return {
    read: (value) => (Array.isArray(value) ? value.map((e) => (e === null ? null : base.read(e))) : value),
    write: (value) => (Array.isArray(value) ? value.map((e) => (e === null ? null : base.write(e))) : value),
  }
}
