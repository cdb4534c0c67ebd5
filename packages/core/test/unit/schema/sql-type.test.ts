import { describe, expect, it } from 'vitest'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { intervalTypmod, parseSqlType } from '../../../src/schema/sql-type.ts'

describe('parseSqlType', () => {
  it('reads the types pipeflush has a codec for in any of their spellings', () => {
    expect(parseSqlType('bigint')).toEqual({ kind: 'known', type: 'int8', isArray: false })
    expect(parseSqlType('INTEGER[]')).toEqual({ kind: 'known', type: 'int4', isArray: true })
    expect(parseSqlType('pg_catalog.int2')).toEqual({ kind: 'known', type: 'int2', isArray: false })
    expect(parseSqlType('double precision')).toEqual({ kind: 'known', type: 'float8', isArray: false })
    expect(parseSqlType('float(10)')).toEqual({ kind: 'known', type: 'float4', isArray: false })
    expect(parseSqlType('float')).toEqual({ kind: 'known', type: 'float8', isArray: false })
    expect(parseSqlType('numeric(10, 2)')).toEqual({
      kind: 'known',
      type: 'numeric',
      isArray: false,
      numericTypmod: { precision: 10, scale: 2 },
    })
    expect(parseSqlType('decimal(5)[]')).toEqual({
      kind: 'known',
      type: 'numeric',
      isArray: true,
      numericTypmod: { precision: 5, scale: 0 },
    })
    expect(parseSqlType('numeric')).toEqual({ kind: 'known', type: 'numeric', isArray: false })
    // A negative number is a numeric's scale only, as PostgreSQL reads type names.
    for (const refused of ['varchar(-1)', 'numeric(-3)', 'float(-1)', 'numeric(-3,2)'])
      expect(typeof parseSqlType(refused), refused).toBe('string')
    expect(parseSqlType('numeric(3, -2)')).toEqual({
      kind: 'known',
      type: 'numeric',
      isArray: false,
      numericTypmod: { precision: 3, scale: -2 },
    })
    expect(parseSqlType('varchar(3)[]')).toEqual({
      kind: 'known',
      type: 'varchar',
      isArray: true,
      maxLength: 3,
    })
    expect(parseSqlType('character varying(40)')).toEqual({
      kind: 'known',
      type: 'varchar',
      isArray: false,
      maxLength: 40,
    })
    expect(parseSqlType('varchar')).toEqual({ kind: 'known', type: 'varchar', isArray: false })
    expect(parseSqlType('char')).toEqual({ kind: 'known', type: 'bpchar', isArray: false, maxLength: 1 })
    expect(parseSqlType('character(3)')).toEqual({
      kind: 'known',
      type: 'bpchar',
      isArray: false,
      maxLength: 3,
    })
    expect(parseSqlType('bpchar')).toEqual({ kind: 'known', type: 'bpchar', isArray: false })
    expect(parseSqlType('timestamp(3) with time zone')).toEqual({
      kind: 'known',
      type: 'timestamptz',
      isArray: false,
    })
    expect(parseSqlType('timestamp without time zone[]')).toEqual({
      kind: 'known',
      type: 'timestamp',
      isArray: true,
    })
    expect(parseSqlType('boolean array')).toEqual({ kind: 'known', type: 'bool', isArray: true })
    expect(parseSqlType('text[3]')).toEqual({ kind: 'known', type: 'text', isArray: true })
  })

  it('reads every other type as a cast without typmod, quoted where needed', () => {
    expect(parseSqlType('inet')).toEqual({ kind: 'other', castType: 'inet', isArray: false })
    expect(parseSqlType('bit(3)')).toEqual({ kind: 'other', castType: '"bit"', isArray: false })
    expect(parseSqlType('bit varying(3)[]')).toEqual({ kind: 'other', castType: 'varbit', isArray: true })
    expect(parseSqlType('time(2) without time zone')).toEqual({
      kind: 'other',
      castType: '"time"',
      isArray: false,
    })
    expect(parseSqlType('time with time zone')).toEqual({ kind: 'other', castType: 'timetz', isArray: false })
    expect(parseSqlType('"char"')).toEqual({ kind: 'other', castType: '"char"', isArray: false })
    expect(parseSqlType('public.citext')).toEqual({
      kind: 'other',
      castType: '"public"."citext"',
      isArray: false,
    })
    expect(parseSqlType('"Pf Schema"."Mood Type"[]')).toEqual({
      kind: 'other',
      castType: '"Pf Schema"."Mood Type"',
      isArray: true,
    })
    expect(parseSqlType('public.geometry(Point, 4326)')).toEqual({
      kind: 'other',
      castType: '"public"."geometry"',
      isArray: false,
    })
    expect(parseSqlType('box[]')).toEqual({
      kind: 'other',
      castType: 'box',
      isArray: true,
      arrayDelimiter: ';',
    })
  })

  it('keeps the typmod of intervals, whose fields change how the text reads', () => {
    expect(parseSqlType('interval')).toEqual({ kind: 'other', castType: '"interval"', isArray: false })
    expect(parseSqlType('interval year')).toEqual({
      kind: 'other',
      castType: '"interval"',
      isArray: false,
      inputTypmod: 327679,
    })
    expect(parseSqlType('interval minute to second')).toMatchObject({ inputTypmod: 402718719 })
    expect(parseSqlType('interval(2)')).toMatchObject({ inputTypmod: 2147418114 })
    expect(parseSqlType('interval day to second(3)[]')).toMatchObject({
      isArray: true,
      inputTypmod: intervalTypmod('day to second', 3),
    })
  })

  it('says what it cannot read', () => {
    expect(parseSqlType('')).toBe('not a type name')
    expect(parseSqlType('int4[][]')).toBe('only one-dimensional arrays are supported')
    expect(parseSqlType('numeric(5')).toBe('unbalanced ( )')
    expect(parseSqlType('interval week')).toBe('unknown interval fields in interval week')
    expect(parseSqlType('some thing')).toBe('unknown type some thing')
    expect(parseSqlType("text'; drop table x")).toBe('not a type name')
  })
})

describe('intervalTypmod', () => {
  it('encodes fields and precision as PostgreSQL does', () => {
    expect(intervalTypmod('year', undefined)).toBe(327679)
    expect(intervalTypmod('', 2)).toBe(2147418114)
    expect(intervalTypmod('', undefined)).toBeUndefined()
    expect(intervalTypmod('second', 9)).toBe(intervalTypmod('second', 6))
    expect(intervalTypmod('week', undefined)).toBeUndefined()
  })
})

describe('defineSchema with columns given by their SQL type', () => {
  const schema = defineSchema({
    session: {
      columns: {
        id: { sql: 'bigint', identity: 'by default' },
        ip: { sql: 'inet' },
        ages: { sql: 'interval year[]', nullable: true },
        name: { sql: 'character varying(20)' },
        email: { sql: 'public.citext', nullable: true },
        typed: 'text',
      },
      primaryKey: ['id'],
    },
  })
  const table = schema.tables.get('session')!

  it('gives known types their codec and every other type an other column cast by its name', () => {
    expect(table.columnsByName.get('id')).toMatchObject({
      type: 'int8',
      identity: 'by default',
      sqlType: 'int8',
    })
    expect(table.columnsByName.get('ip')).toMatchObject({
      type: 'other',
      castType: 'inet',
      sqlType: 'inet',
      nullable: false,
    })
    expect(table.columnsByName.get('ages')).toMatchObject({
      type: 'other',
      castType: '"interval"',
      inputTypmod: 327679,
      isArray: true,
      sqlType: 'interval year[]',
    })
    expect(table.columnsByName.get('name')).toMatchObject({ type: 'varchar', maxLength: 20 })
    expect(table.columnsByName.get('email')).toMatchObject({ type: 'other', castType: '"public"."citext"' })
    expect(table.columnsByName.get('typed')).toMatchObject({ type: 'text' })
  })

  it('refuses a type it cannot read, and identity on a non-integer, as INVALID_CONFIG', () => {
    expect(() =>
      defineSchema({ t: { columns: { id: 'int4', x: { sql: 'int4[][]' } }, primaryKey: ['id'] } }),
    ).toThrow(
      /column "x" has a type pipeflush cannot read, "int4\[\]\[\]": only one-dimensional arrays are supported/,
    )
    expect(() =>
      defineSchema({ t: { columns: { id: { sql: 'inet', identity: 'always' } }, primaryKey: ['id'] } }),
    ).toThrow(/identity column "id" must be int2, int4 or int8/)
  })
})
