import type { ColumnModel } from '../model/model.ts'
import { parseArrayLiteral } from './array-literal.ts'
import type { ScalarCodec } from './codec.ts'
import { codecFor } from './codecs.ts'
import type { ValueLocation } from './location.ts'
import { describeWritten, problem, withLocation } from './location.ts'
import { applicationValue } from './mapping.ts'

/**
 * The JS value of the server's text output for `column` (`select col::text`), or null for SQL NULL:
 * the inverse of {@link encodeValue} (the column's `mapping`, if any, reads it last). Results do not depend on how the postgres.js client was
 * configured. Needs the session defaults `DateStyle = ISO` and `extra_float_digits >= 1` (PostgreSQL
 * 12+). `at` only improves the error message when the text cannot be decoded.
 *
 * @example
 * decodeValue('2024-01-02 03:04:05.123456+05:30', tsColumn) // Date 2024-01-01T21:34:05.123Z
 * decodeValue('{1,NULL}', int8ArrayColumn) // ['1', null]
 */
export function decodeValue(text: string | null, column: ColumnModel, at?: ValueLocation): unknown {
  if (text === null) return null
  return withLocation(column, at, () => {
    const codec = codecFor(column.type)
    if (!column.isArray) return applicationValue(codec.decode(text, column), column)
    const elements = parseArrayLiteral(text, column.arrayDelimiter)
    if (typeof elements === 'string')
      problem(`cannot decode ${describeWritten(text)} as an array: ${elements}`, text)
    return applicationValue(
      elements.map((e) => (e === null ? null : codec.decode(e, column))),
      column,
    )
  })
}

/**
 * The codec whose `decode` alone gives `column`'s value from its text (a scalar column without a
 * `mapping`), or undefined where {@link decodeValue} does more. For decoders made once per table: a
 * text its codec refuses is decoded again by `decodeValue`, whose error says where.
 *
 * @example
 * const codec = plainCodec(titleColumn) // the text codec
 * codec?.decode('Dune', titleColumn) // 'Dune'
 */
export function plainCodec(column: ColumnModel): ScalarCodec | undefined {
  return column.isArray || column.mapping !== undefined ? undefined : codecFor(column.type)
}
