import { describe, expect, it } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'
import {
  castSql,
  quoteIdentifier,
  quoteStringLiteral,
  quoteTextArrayLiteral,
  TEXT_ARRAY_OID,
  textArrayParam,
} from '../../../src/values/index.ts'
import { column } from './columns.ts'

describe('quoteIdentifier', () => {
  it('double-quotes and doubles inner quotes', () => {
    expect(quoteIdentifier('book')).toBe('"book"')
    expect(quoteIdentifier('Book Title')).toBe('"Book Title"')
    expect(quoteIdentifier('a"b')).toBe('"a""b"')
    expect(quoteIdentifier('a.b')).toBe('"a.b"')
    expect(quoteIdentifier("it's")).toBe('"it\'s"')
    expect(quoteIdentifier('日本')).toBe('"日本"')
  })

  it('rejects empty names, NUL characters and lone surrogates', () => {
    expect(() => quoteIdentifier('')).toThrow(PipeflushError)
    expect(() => quoteIdentifier('a\u0000b')).toThrow(/NUL/)
    expect(() => quoteIdentifier('a\uD800')).toThrow(/surrogate/)
  })
})

describe('quoteStringLiteral and quoteTextArrayLiteral', () => {
  it('doubles single quotes, and uses an escape string when there is a backslash', () => {
    expect(quoteStringLiteral('abc')).toBe("'abc'")
    expect(quoteStringLiteral("it's")).toBe("'it''s'")
    expect(quoteStringLiteral('a\\b')).toBe("E'a\\\\b'")
    expect(quoteStringLiteral("\\'")).toBe("E'\\\\'''")
    expect(quoteStringLiteral('')).toBe("''")
  })

  it('quotes a text[] literal', () => {
    expect(quoteTextArrayLiteral([])).toBe("'{}'::text[]")
    expect(quoteTextArrayLiteral([null])).toBe("'{NULL}'::text[]")
    expect(quoteTextArrayLiteral(["it's", null, ''])).toBe(`'{"it''s",NULL,""}'::text[]`)
    expect(quoteTextArrayLiteral(['a"b'])).toBe(`E'{"a\\\\"b"}'::text[]`)
    expect(quoteTextArrayLiteral(['\\x00ff'])).toBe(`E'{"\\\\\\\\x00ff"}'::text[]`)
  })

  it('rejects NUL characters and lone surrogates', () => {
    expect(() => quoteTextArrayLiteral(['a\u0000'])).toThrow(/NUL/)
    expect(() => quoteStringLiteral('\uDFFF')).toThrow(/surrogate/)
  })
})

describe('textArrayParam', () => {
  it('is the array literal, or a typed text[] parameter when given sql', () => {
    expect(textArrayParam([])).toBe('{}')
    expect(textArrayParam([null, 'a'])).toBe('{NULL,"a"}')
    const calls: [unknown, number][] = []
    const sql = {
      typed<T>(value: T, oid: number) {
        calls.push([value, oid])
        return { value, type: oid } as never
      },
    }
    textArrayParam([null], sql)
    expect(calls).toEqual([['{NULL}', TEXT_ARRAY_OID]])
    expect(TEXT_ARRAY_OID).toBe(1009)
    expect(() => textArrayParam(['\u0000'])).toThrow(/NUL/)
  })
})

describe('castSql', () => {
  it('casts to the unconstrained base type, with [] for arrays', () => {
    expect(castSql(column('int8'))).toBe('int8')
    expect(castSql(column('numeric'))).toBe('numeric')
    expect(castSql(column('timestamptz', { isArray: true }))).toBe('timestamptz[]')
    expect(castSql(column('varchar', { sqlType: 'varchar(3)', maxLength: 3 }))).toBe('varchar')
    expect(castSql(column('bpchar', { sqlType: 'bpchar(3)[]', isArray: true }))).toBe('bpchar[]')
  })

  it('uses the schema-qualified sqlType for enums', () => {
    expect(castSql(column('enum'))).toBe('"public"."mood"')
    expect(castSql(column('enum', { isArray: true }))).toBe('"public"."mood"[]')
  })
})
