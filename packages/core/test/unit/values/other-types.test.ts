import { describe, expect, it } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'
import type { ColumnModel } from '../../../src/model/model.ts'
import { keyMatchSql } from '../../../src/plan/sql/sql-text.ts'
import { whereSql } from '../../../src/read/select-sql.ts'
import { buildColumnModel, buildTableModel } from '../../../src/schema/build-table.ts'
import {
  castSql,
  castText,
  castTextList,
  comparedColumn,
  decodeValue,
  delimitedArrayLiteral,
  encodeValue,
  normalizeKeyValue,
  parseArrayLiteral,
  sameValue,
  typeSqlName,
} from '../../../src/values/index.ts'
import { at, column } from './columns.ts'

/** An `other` column: a type pipeflush knows by its SQL name only. */
function other(castType: string, extra: Partial<Parameters<typeof buildColumnModel>[0]> = {}): ColumnModel {
  return buildColumnModel({ name: 'c', type: 'other', castType, nullable: true, ...extra })
}

const YEAR = 327679 // the typmod of `interval year`

describe('typeSqlName', () => {
  it('names pg_catalog types bare, quoting keywords (a bare bit is bit(1), a bare char is char(1))', () => {
    expect(typeSqlName('pg_catalog', 'inet')).toBe('inet')
    expect(typeSqlName('pg_catalog', 'int4range')).toBe('int4range')
    expect(typeSqlName('pg_catalog', 'bit')).toBe('"bit"')
    expect(typeSqlName('pg_catalog', 'char')).toBe('"char"')
    expect(typeSqlName('pg_catalog', 'interval')).toBe('"interval"')
    expect(typeSqlName('pg_catalog', 'time')).toBe('"time"')
    expect(typeSqlName(undefined, 'citext')).toBe('citext')
    expect(typeSqlName(undefined, 'My Type')).toBe('"My Type"')
  })

  it('qualifies and quotes types of other schemas', () => {
    expect(typeSqlName('public', 'citext')).toBe('"public"."citext"')
    expect(typeSqlName('Pf Schema', 'Mood "Type"')).toBe('"Pf Schema"."Mood ""Type"""')
  })
})

describe('casts of other types', () => {
  it('casts to castType, with [] for arrays', () => {
    expect(castSql(other('inet'))).toBe('inet')
    expect(castSql(other('"public"."citext"', { isArray: true }))).toBe('"public"."citext"[]')
    expect(castText('d."c"', other('int4range'))).toBe('d."c"::int4range')
    expect(castTextList('$1::text[]', other('inet'))).toBe('$1::text[]::inet[]')
  })

  it('reads intervals with fields by interval_in with the typmod, arrays element by element in order', () => {
    const years = other('"interval"', { inputTypmod: YEAR })
    expect(castText('d."c"', years)).toBe(
      `pg_catalog.interval_in(d."c"::cstring, 'pg_catalog.interval'::regtype, ${YEAR})`,
    )
    expect(castText('d."c"', other('"interval"', { inputTypmod: YEAR, isArray: true }))).toBe(
      `case when d."c" is null then null else array(select pg_catalog.interval_in(pf_e::cstring, 'pg_catalog.interval'::regtype, ${YEAR}) ` +
        `from unnest(d."c"::text[]) with ordinality as pf_u(pf_e, pf_i) order by pf_i) end`,
    )
    expect(castTextList('$1::text[]', years)).toBe(
      `array(select pg_catalog.interval_in(pf_e::cstring, 'pg_catalog.interval'::regtype, ${YEAR}) ` +
        `from unnest($1::text[]) with ordinality as pf_u(pf_e, pf_i) order by pf_i)`,
    )
    expect(() => castText('x', other('inet', { inputTypmod: 1 }))).toThrow(/only supported for interval/)
  })

  it('compares a domain column cast to the type it is over; other columns as they are', () => {
    const mood = column('enum', {
      castType: '"public"."mood"',
      sqlType: 'public.mood_domain',
      isDomain: true,
    })
    expect(comparedColumn('t."m"', mood)).toBe('t."m"::"public"."mood"')
    expect(comparedColumn('t."m"', { ...mood, isArray: true })).toBe('t."m"::"public"."mood"[]')
    expect(comparedColumn('t."id"', column('int8'))).toBe('t."id"')
    const table = buildTableModel({
      schema: 'public',
      name: 'x',
      columns: [{ ...mood, name: 'm' }],
      primaryKey: ['m'],
    })
    expect(keyMatchSql('t', ['d."m"'], table.columns)).toBe('t."m"::"public"."mood" = d."m"::"public"."mood"')
    expect(keyMatchSql('t', ['$1::text'], table.columns)).toBe(
      't."m"::"public"."mood" = $1::text::"public"."mood"',
    )
    expect(whereSql(table, { m: 'sad' }, 't').sql).toContain(
      '"m"::"public"."mood" = $1::text::"public"."mood"',
    )
    expect(whereSql(table, { m: null }, 't').sql).toContain('t."m" is null')
  })

  it('finds other types with a cast per condition and a list cast, typmods included', () => {
    const table = buildTableModel({
      schema: 'public',
      name: 'session',
      columns: [
        { name: 'id', type: 'int8' },
        other('inet', { name: 'ip' }),
        other('"interval"', { name: 'age', inputTypmod: YEAR }),
      ],
      primaryKey: ['id'],
    })
    const { sql, params } = whereSql(table, { ip: ['10.0.0.1', '::1'], age: '1' }, 't')
    expect(sql).toContain('t."ip" = any($1::text[]::inet[])')
    expect(sql).toContain(
      `t."age" = pg_catalog.interval_in($2::text::cstring, 'pg_catalog.interval'::regtype, ${YEAR})`,
    )
    expect(params).toEqual([['10.0.0.1', '::1'], '1'])
  })
})

describe('values of other types', () => {
  it('are strings written as given and read as the server prints them', () => {
    const range = other('int4range')
    expect(encodeValue('[1,5)', range, at)).toBe('[1,5)')
    expect(decodeValue('[1,5)', range)).toBe('[1,5)')
    expect(encodeValue(['[1,2)', null, 'empty'], other('int4range', { isArray: true }), at)).toBe(
      '{"[1,2)",NULL,"empty"}',
    )
    expect(decodeValue('{"[1,2)",NULL,empty}', other('int4range', { isArray: true }))).toEqual([
      '[1,2)',
      null,
      'empty',
    ])
  })

  it('reject anything but strings, and text no PostgreSQL value holds, naming table, column and row', () => {
    const cases: [unknown, RegExp][] = [
      [1, /book\.c \(row id=7\): expected a string \(the text form of inet\), got a number/],
      [new Date(0), /expected a string/],
      [{ a: 1 }, /expected a string/],
      ['a\u0000', /NUL/],
      ['\ud800', /surrogate/],
      [undefined, /undefined is not a value/],
    ]
    for (const [value, pattern] of cases) {
      expect(() => encodeValue(value, other('inet'), at)).toThrow(pattern)
      expect(() => encodeValue(value, other('inet'), at)).toThrow(PipeflushError)
    }
    expect(() => encodeValue('x', other('inet', { isArray: true }), at)).toThrow(
      /expected an array for inet\[\]/,
    )
  })

  it('read inet as its output prints it: a single host without its netmask, as in arrays', () => {
    const inet = other('inet')
    expect(decodeValue('10.0.0.1/32', inet)).toBe('10.0.0.1')
    expect(decodeValue('::1/128', inet)).toBe('::1')
    expect(decodeValue('10.0.0.0/8', inet)).toBe('10.0.0.0/8')
    expect(decodeValue('::1/32', inet)).toBe('::1/32')
    expect(decodeValue('10.0.0.1', inet)).toBe('10.0.0.1')
    expect(decodeValue('10.0.0.1/32', other('cidr'))).toBe('10.0.0.1/32')
  })

  it('compare and key by their text (a form the server canonicalizes is another text)', () => {
    const inet = other('inet')
    expect(sameValue('10.0.0.1', '10.0.0.1', inet)).toBe(true)
    expect(sameValue('10.0.0.1', '10.0.0.1/32', inet)).toBe(false)
    expect(sameValue(1, '1', inet)).toBe(false)
    expect(normalizeKeyValue('10.0.0.1', inet)).toBe('10.0.0.1')
    expect(() => normalizeKeyValue(1, inet)).toThrow(/expected a string/)
  })

  it('travel in arrays with the element delimiter of their type (box: ;)', () => {
    const boxes = other('box', { isArray: true, arrayDelimiter: ';' })
    expect(encodeValue(['(1,1),(0,0)', null, '(2,2),(1,1)'], boxes, at)).toBe(
      '{"(1,1),(0,0)";NULL;"(2,2),(1,1)"}',
    )
    expect(decodeValue('{(1,1),(0,0);(2,2),(1,1);NULL}', boxes)).toEqual(['(1,1),(0,0)', '(2,2),(1,1)', null])
    expect(delimitedArrayLiteral(['a;b'], ';')).toBe('{"a;b"}')
    expect(parseArrayLiteral('{"a;b";c}', ';')).toEqual(['a;b', 'c'])
    expect(parseArrayLiteral('{a,b}', ';')).toEqual(['a,b'])
  })
})

describe('timestamps declared as text (Drizzle holds the server text)', () => {
  it('key a timestamptz by the instant its text stands for: an ISO text, the server text in any TimeZone', () => {
    const tz = other('timestamptz')
    const key = normalizeKeyValue('2022-06-01 12:00:00.5+00', tz)
    for (const form of [
      '2022-06-01T12:00:00.5Z',
      '2022-06-01T12:00:00.500000Z',
      '2022-06-01 14:00:00.5+02',
      '2022-06-01 14:00:00.5+02:00',
      '2022-06-01T14:00:00.5+0200',
      '2022-06-01 06:30:00.5-05:30',
    ])
      expect(normalizeKeyValue(form, tz), form).toBe(key)
    expect(normalizeKeyValue('2022-06-01 12:00:00.500001+00', tz)).not.toBe(key)
    expect(normalizeKeyValue('2022-06-01 12:00:00.500001+00', tz)).toBe(
      normalizeKeyValue('2022-06-01T12:00:00.500001Z', tz),
    )
    expect(normalizeKeyValue('2022-06-01T12:00Z', tz)).toBe(normalizeKeyValue('2022-06-01 12:00:00+00', tz))
  })

  it('key a timestamptz text without an offset, or in another form, by its text (the session TimeZone reads it)', () => {
    const tz = other('timestamptz')
    expect(normalizeKeyValue('2022-06-01 12:00:00', tz)).toBe('2022-06-01 12:00:00')
    expect(normalizeKeyValue('June 1 2022 12:00', tz)).toBe('June 1 2022 12:00')
    expect(normalizeKeyValue('infinity', tz)).toBe('infinity')
    // Texts the server refuses are no key: refused before anything is sent (they were taken as the
    // key of another value, the next day's, another instant).
    for (const refused of [
      '2022-13-01 12:00:00+00',
      '2022-06-01 24:00:01+00',
      '2022-06-01 25:00+00',
      '2022-06-01 23:60:00+00',
      '2022-06-01 12:00:00+02:75',
      '2022-06-01 12:00:00+16',
      '0000-06-01 12:00:00+00',
    ])
      expect(() => normalizeKeyValue(refused, tz), refused).toThrow(/is not a timestamp/)
    expect(normalizeKeyValue('2022-06-01 24:00:00+00', tz)).toBe(
      normalizeKeyValue('2022-06-02 00:00:00+00', tz),
    )
  })

  // Bug: any text was sent as it was given (Drizzle's `mode: 'string'`): a text the server refuses
  // failed the flush there, STATEMENT_FAILED naming no column (found by an outside probe).
  it('check a timestamp text before sending: special inputs, ISO dates and times in range; other forms left to the server', () => {
    for (const type of ['timestamp', 'timestamptz']) {
      const c = other(type)
      for (const good of [
        '2024-01-05 12:00:00+02',
        '2024-01-05T12:00:00.123456Z',
        '2024-02-29 00:00',
        '2024-01-05',
        '0044-03-15 12:00:00 BC',
        '0001-02-29 BC',
        'infinity',
        '-Infinity',
        ' now ',
        'epoch',
        'January 8 04:05:06 1999 PST',
        '2024-01-05 12:00:00 Europe/Paris',
      ])
        expect(encodeValue(good, c, at), good).toBe(good)
      for (const bad of [
        'yesterday-ish',
        'soon',
        '',
        '2024-13-45 25:61:00',
        '2023-02-29 12:00',
        '2024-04-31',
        '2024-01-05 25:00:00',
        '2024-01-05 12:60:00+00',
        '0000-01-01 00:00:00',
      ])
        expect(() => encodeValue(bad, c, at), bad).toThrow(/is not a timestamp/)
    }
  })

  it('key a timestamp without time zone by its wall clock, an offset ignored as the server ignores it', () => {
    const ts = other('timestamp')
    const key = normalizeKeyValue('2022-06-01 12:00:00.123456', ts)
    expect(normalizeKeyValue('2022-06-01T12:00:00.123456', ts)).toBe(key)
    expect(normalizeKeyValue('2022-06-01T12:00:00.123456Z', ts)).toBe(key)
    expect(normalizeKeyValue('2022-06-01 12:00:00.123456+05', ts)).toBe(key)
    expect(normalizeKeyValue('2022-06-01 12:00:00.123457', ts)).not.toBe(key)
    expect(normalizeKeyValue('0044-03-15 12:00:00 BC', ts)).toBe(
      normalizeKeyValue('0044-03-15T12:00:00 BC', ts),
    )
  })
})

// Bug (outside probe shapes4): the server keeps a "char"'s first byte and cuts a name past 63 bytes
// without a word; both were sent and committed cut, the entity holding what was given.
describe('"char" and name: what the column cannot hold is INVALID_VALUE before sending', () => {
  const refused = (c: ColumnModel, value: unknown) => {
    let error: unknown
    try {
      encodeValue(value, c, at)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(PipeflushError)
    expect((error as PipeflushError).code).toBe('INVALID_VALUE')
    return (error as Error).message
  }

  it('"char": one ASCII character or none', () => {
    const ch = other('"char"')
    expect([encodeValue('a', ch, at), encodeValue('', ch, at)]).toEqual(['a', ''])
    // A byte past ASCII as the server writes one (and reads it: what a read gives is written back).
    expect(encodeValue('\\303', ch, at)).toBe('\\303')
    expect(refused(ch, '\\403')).toMatch('does not fit a "char"')
    expect(refused(ch, 'ab')).toMatch('does not fit a "char", which holds one byte')
    expect(refused(ch, 'é')).toMatch('does not fit a "char"')
    const chars = other('"char"', { isArray: true, sqlType: '"char"[]' })
    expect(refused(chars, ['a', 'bc'])).toMatch('element 1: a string of 2 characters does not fit a "char"')
    expect(() => normalizeKeyValue('ab', ch)).toThrow(PipeflushError)
  })

  it('name: at most 63 bytes in UTF-8', () => {
    const n = other('name')
    expect(encodeValue('x'.repeat(63), n, at)).toBe('x'.repeat(63))
    expect(refused(n, 'x'.repeat(64))).toMatch('is 64 bytes in UTF-8, and a name holds at most 63')
    expect(refused(n, 'é'.repeat(32))).toMatch('is 64 bytes in UTF-8')
  })
})
