import { type ColumnModel, EntityManager, isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { createRoundTripCounter, type DriverName, openClient } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import fc from 'fast-check'
import { beforeAll, describe, expect, test } from 'vitest'
import { sameValue } from '../../../src/values/index.ts'
import { settleWithin } from './support.ts'

// A fixed seed by default, so CI is reproducible; FC_SEED=random (or a number) explores other inputs.
// A failure prints the seed and path to replay it.
const seedEnv = process.env['FC_SEED']
if (seedEnv !== 'random') fc.configureGlobal({ seed: seedEnv ? Number(seedEnv) : 20_261_121 })

const db = useTestDatabase()

const LABELS = ['sad', 'ok', 'happy', `it's "quoted"`]

beforeAll(async () => {
  await db.sql.unsafe(`
    create type mood as enum (${LABELS.map((l) => `'${l.replace(/'/g, "''")}'`).join(', ')});
    create table vals (id int4 primary key, i2 int2, i4 int4, i8 int8, num numeric, f4 float4, f8 float8,
      t text, vc varchar(10), ch char(3), b bool, d date, ts timestamp, tz timestamptz, u uuid,
      j json, jb jsonb, by bytea, ta text[], ia int4[], e mood);
    create table sentinel (id int primary key);
    insert into sentinel values (1);
  `)
})

/** Strings that try to escape a literal or an identifier, or look like parameters. */
const INJECTIONS = [
  `'); drop table sentinel; --`,
  `"; drop table sentinel; --`,
  `\\'; drop table sentinel; --`,
  `$1`,
  `$$; drop table sentinel; $$`,
  `E'\\x41'`,
  `\\`,
  `{"a",NULL}`,
  `NULL`,
  `*/ select 1; /*`,
  `'::text[]); drop table sentinel; --`,
]

/** Characters that stress quoting and encoding, NUL and lone surrogates included (to be rejected). */
const awkwardChar = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom("'", '"', '\\', '{', '}', ',', ' ', '$', ';', '\n', '\t', '😀', 'é'),
  },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udfff') },
)
const awkwardString = fc.oneof(
  fc.string({ unit: awkwardChar, maxLength: 24 }),
  fc.constantFrom(...INJECTIONS),
)

/** Values of every kind, wrong for most columns: each must be stored exactly or rejected. */
const WRONG: readonly unknown[] = [
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  new Date(Number.NaN),
  2n ** 64n,
  -(2n ** 63n) - 1n,
  2n ** 63n,
  1.5,
  -0,
  2 ** 53,
  '12abc',
  '',
  'a\u0000b',
  'x\ud800y',
  true,
  [],
  [1, [2]],
  [undefined],
  {},
  { a: { b: [1, { c: 2n }] } },
  { a: undefined },
  new Map([['a', 1]]),
  () => 1,
  Symbol('s'),
  new Date('2024-02-29T12:34:56.789Z'),
  Buffer.from('hi'),
  new Uint8Array([0, 255]),
  '2024-02-30',
  '0000-01-01',
  '00000000-0000-0000-0000-00000000000g',
]

/** `[1, <hole>, 3]`, built without a sparse literal. */
function holey(): unknown[] {
  const a: unknown[] = [1]
  a[2] = 3
  return a
}

/** Text PostgreSQL can hold: no NUL, no lone surrogate. */
function storable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0 || (c >= 0xdc00 && c <= 0xdfff)) return false
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false
      i++
    }
  }
  return true
}

const INT4 = { min: -(2 ** 31), max: 2 ** 31 - 1 }

/** Values valid for each column (they must be stored and read back exactly). */
const VALID: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  i2: fc.integer({ min: -32768, max: 32767 }),
  i4: fc.integer(INT4),
  i8: fc.oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.maxSafeInteger(),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  ),
  num: fc.oneof(
    fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat(20)).map(([n, scale]) => {
      const digits = (n < 0n ? -n : n).toString().padStart(scale + 1, '0')
      const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
      return n < 0n ? `-${text}` : text
    }),
    fc.integer(),
  ),
  f4: fc.float({ noNaN: true, noDefaultInfinity: true }),
  f8: fc.double({ noNaN: true, noDefaultInfinity: true }),
  t: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom(...INJECTIONS)),
  vc: fc.string({ unit: 'grapheme', maxLength: 10 }).filter((s) => [...s].length <= 10),
  ch: fc.string({ unit: 'grapheme-ascii', maxLength: 3 }),
  b: fc.boolean(),
  d: fc.oneof(
    fc.date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T00:00:00Z'),
      noInvalidDate: true,
    }),
    fc.constantFrom('2024-02-29', '1999-12-31', 'infinity', '-infinity', '0044-03-15 BC'),
  ),
  ts: fc.date({
    min: new Date('0001-01-01T00:00:00Z'),
    max: new Date('9999-12-31T00:00:00Z'),
    noInvalidDate: true,
  }),
  tz: fc.date({ min: new Date(-62135596800000), max: new Date(8.64e15), noInvalidDate: true }),
  u: fc.uuid(),
  j: fc.jsonValue({ maxDepth: 4 }),
  jb: fc.jsonValue({ maxDepth: 4 }),
  by: fc.uint8Array({ maxLength: 64 }),
  ta: fc.array(fc.option(fc.string({ unit: 'grapheme', maxLength: 8 })), {
    maxLength: 5,
  }),
  ia: fc.array(fc.option(fc.integer(INT4)), { maxLength: 5 }),
  e: fc.constantFrom(...LABELS),
}
const COLUMNS = Object.keys(VALID)

/** For each column: a valid value, a wrong one, an awkward string, or null. */
const ANY: Readonly<Record<string, fc.Arbitrary<unknown>>> = Object.fromEntries(
  COLUMNS.map((c) => [
    c,
    fc.oneof(
      { weight: 12, arbitrary: VALID[c]! },
      { weight: 2, arbitrary: fc.constantFrom(...WRONG) },
      { weight: 2, arbitrary: awkwardString },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
    ),
  ]),
)

const rowOf = (arbs: Readonly<Record<string, fc.Arbitrary<unknown>>>) =>
  fc
    .uniqueArray(fc.constantFrom(...COLUMNS), { minLength: 1, maxLength: 4 })
    .chain((columns) => fc.record(Object.fromEntries(columns.map((c) => [c, arbs[c]!]))))

let nextId = 1

interface Checked {
  readonly stored: number
  readonly rejected: number
}

/**
 * Creates `rows` in a new unit of work and flushes: either every value reads back exactly (checked
 * with a fresh entity manager) or the flush is rejected with INVALID_VALUE naming the table, a
 * column and the row of a value that is indeed not storable, before anything was sent.
 */
async function flushAndCheck(
  root: EntityManager,
  counter: { reset(): void; read(): { writes: number } },
  rows: readonly Record<string, unknown>[],
): Promise<'stored' | 'rejected'> {
  const em = root.fork({ flushTimeoutMs: 10_000 })
  const withIds: (Record<string, unknown> & { id: number })[] = rows.map((values) => ({
    id: nextId++,
    ...values,
  }))
  for (const row of withIds) em.create('vals', row)
  counter.reset()
  const result = await settleWithin(em.flush(), 15_000)
  if (!result.ok) {
    const error = result.error as PipeflushError
    if (!isPipeflushError(error, 'INVALID_VALUE')) throw error
    expect(counter.read().writes, 'nothing is sent for a rejected flush').toBe(0)
    expect(error.table).toBe('vals')
    const row = withIds.find((r) => error.message.includes(`id=${r.id}`))
    expect(row, `the message names the row: ${error.message}`).toBeDefined()
    expect(Object.keys(row!)).toContain(error.column)
    expect(error.message).toContain(`vals.${error.column}`)
    // That value alone is rejected too: the error points at the culprit.
    const alone = root.fork()
    alone.create('vals', { id: nextId++, [error.column!]: row![error.column!] })
    await expect(alone.flush()).rejects.toMatchObject({ code: 'INVALID_VALUE', column: error.column })
    expect(em.pending.inserts).toBe(rows.length)
    return 'rejected'
  }
  const reader = root.fork()
  const read = await reader.find('vals', { id: withIds.map((r) => r.id) })
  expect(read).toHaveLength(withIds.length)
  const model = root.schema.tables.get('vals')!
  for (const row of withIds) {
    const back = read.find((r) => r['id'] === row.id)!
    for (const [name, value] of Object.entries(row)) {
      const column = model.columnsByName.get(name) as ColumnModel
      const where = `vals.${name} of row ${row.id}: wrote ${show(value)}, read ${show(back[name])}`
      if (value === null) expect(back[name], where).toBeNull()
      else expect(sameValue(back[name], value, column), where).toBe(true)
      if (typeof value === 'string' && (name === 't' || name === 'vc')) expect(back[name], where).toBe(value)
    }
  }
  return 'stored'
}

function show(value: unknown): string {
  try {
    return typeof value === 'bigint'
      ? `${value}n`
      : (JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value)).slice(
          0,
          200,
        )
  } catch {
    return String(value)
  }
}

async function setup(driver: DriverName) {
  const { client, counter } = db.client(driver, { max: 1 })
  const root = await EntityManager.connect(client)
  return { root, counter }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe('values: stored and read back exactly, or rejected before anything is sent', () => {
    test('property: any value of any kind in any column, 1-3 rows per flush', async () => {
      const { root, counter } = await setup(driver)
      const seen: Checked = { stored: 0, rejected: 0 }
      await fc.assert(
        fc.asyncProperty(fc.array(rowOf(ANY), { minLength: 1, maxLength: 3 }), async (rows) => {
          const outcome = await flushAndCheck(root, counter, rows)
          ;(seen as { stored: number; rejected: number })[outcome]++
        }),
        { numRuns: 250 },
      )
      // Both branches were exercised.
      expect(seen.stored).toBeGreaterThan(10)
      expect(seen.rejected).toBeGreaterThan(10)
      const [sentinel] = await db.sql`select count(*)::int as n from sentinel`
      expect(sentinel?.['n']).toBe(1)
    })

    test('property: valid values are always accepted and read back exactly', async () => {
      const { root, counter } = await setup(driver)
      await fc.assert(
        fc.asyncProperty(fc.array(rowOf(VALID), { minLength: 1, maxLength: 4 }), async (rows) => {
          expect(await flushAndCheck(root, counter, rows)).toBe('stored')
        }),
        { numRuns: 150 },
      )
    })

    test.each([
      ['undefined', 't', undefined],
      ['NaN', 'i4', Number.NaN],
      ['NaN in numeric', 'num', Number.NaN],
      ['NaN in float8', 'f8', Number.NaN],
      ['Infinity in int8', 'i8', Number.POSITIVE_INFINITY],
      ['Infinity in float8', 'f8', Number.POSITIVE_INFINITY],
      ['an invalid Date', 'tz', new Date(Number.NaN)],
      ['an invalid Date in a date column', 'd', new Date('nope')],
      ['a bigint beyond int8', 'i8', 2n ** 63n],
      ['a bigint beyond int8 (negative)', 'i8', -(2n ** 63n) - 1n],
      ['a NUL character', 't', 'a\u0000b'],
      ['a lone surrogate', 't', 'a\ud800b'],
      ['a NUL character in json', 'jb', { a: 'x\u0000' }],
      ['a lone surrogate in a json key', 'j', { '\udc00': 1 }],
      ['a bigint nested in json', 'jb', { a: [{ b: 1n }] }],
      ['a Date nested in json', 'j', { at: new Date(0) }],
      ['a Map as json', 'jb', new Map()],
      [
        'a circular object as json',
        'jb',
        (() => {
          const o: Record<string, unknown> = {}
          o['self'] = o
          return o
        })(),
      ],
      ['an object for text', 't', { a: 1 }],
      ['a number for text', 't', 5],
      ['a string for int4', 'i4', '5'],
      ['a float for int2', 'i2', 1.5],
      ['int2 overflow', 'i2', 40000],
      ['a string for bool', 'b', 'true'],
      ['a number for a Date column', 'ts', 0],
      ['a string for bytea', 'by', '\\x00'],
      ['a scalar for an array column', 'ta', 'a'],
      ['a nested array for int4[]', 'ia', [1, [2]]],
      ['a hole in an array', 'ia', holey()],
      ['an unknown enum label', 'e', 'angry'],
      ['too long for varchar(10)', 'vc', 'x'.repeat(11)],
      ['not a uuid', 'u', 'not-a-uuid'],
    ])('%s is rejected naming table, column and row, nothing sent', async (_label, column, value) => {
      const { root, counter } = await setup(driver)
      expect(await flushAndCheck(root, counter, [{ t: 'fine' }, { [column]: value }])).toBe('rejected')
    })

    test('huge values are stored exactly: a 16 MB string, a 100k-element array, json nested 500 deep', async () => {
      const { root, counter } = await setup(driver)
      const huge = 'é😀'.repeat(2 ** 22) // 16 MiB of UTF-16, 25 MiB of UTF-8
      let nested: unknown = 'leaf'
      for (let i = 0; i < 500; i++) nested = i % 2 ? [nested] : { k: nested }
      const rows = [
        { t: huge },
        { ta: Array.from({ length: 100_000 }, (_, i) => (i % 7 ? `v${i}` : null)) },
        { jb: nested, j: nested },
      ]
      expect(await flushAndCheck(root, counter, rows)).toBe('stored')
    })
  })

  /** A double-quoted identifier, written independently of pipeflush's own quoting. */
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`

  const identChar = fc.oneof(
    { weight: 5, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'a',
        'B',
        '_',
        '0',
        ' ',
        '"',
        "'",
        ';',
        '-',
        '$',
        '.',
        '\\',
        '(',
        'é',
        'ß',
        '日',
        '😀',
        'İ',
      ),
    },
  )
  const identifier = fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: identChar, minLength: 1, maxLength: 12 }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'select',
          'table',
          'user',
          'order',
          'group',
          'from',
          'where',
          'end',
          'Select',
          'SELECT',
          'id',
          'ID',
          'Id',
          '"',
          '""',
          "'",
          '$1',
          '$v',
          'pipeflush_rows',
          'd',
          't',
          'w',
          'n',
          'excluded',
          '; drop table sentinel; --',
          'a"b',
          'x.y',
          ' ',
          'null',
          'NULL',
          'Ünïcödé',
          '表',
        ),
      },
    )
    .filter((s) => Buffer.byteLength(s) <= 63 && storable(s))

  describe('identifiers: quotes, unicode, reserved words, mixed case', () => {
    test('property: a table and columns with such names are created, read from the catalog, inserted, updated and deleted exactly', async () => {
      let run = 0
      await fc.assert(
        fc.asyncProperty(
          identifier.filter((s) => !/^pg_/i.test(s) && !['public', 'information_schema'].includes(s)),
          identifier,
          fc.uniqueArray(identifier, { minLength: 3, maxLength: 3 }),
          awkwardString.filter(storable),
          async (schema, table, [pk, text, json], value) => {
            run++
            await db.sql.unsafe(`drop schema if exists ${q(schema)} cascade`)
            await db.sql.unsafe(
              `create schema ${q(schema)}; create table ${q(schema)}.${q(table)} (${q(pk!)} int8 primary key, ${q(text!)} text, ${q(json!)} jsonb)`,
            )
            const c = openClient(driver, db.proxiedUrl, createRoundTripCounter(), { max: 1 })
            try {
              const root = await EntityManager.connect(c.client, { schemas: [schema] })
              const key = `${schema}.${table}`
              expect([...root.schema.tables.keys()]).toEqual([key])
              const em = root.fork()
              em.create(key, { [pk!]: 1, [text!]: value, [json!]: { [value]: [value] } })
              const second = em.create(key, { [pk!]: 2, [text!]: null, [json!]: null })
              await settleWithin(em.flush(), 10_000)
              const first = await em.load(key, 1)
              first[text!] = `${value}!`
              em.remove(second)
              await settleWithin(em.flush(), 10_000)
              const rows = await db.sql.unsafe<Record<string, unknown>[]>(
                `select ${q(pk!)}::text as pk, ${q(text!)} as text, ${q(json!)} as json from ${q(schema)}.${q(table)} order by 1`,
              )
              expect(rows).toEqual([{ pk: '1', text: `${value}!`, json: { [value]: [value] } }])
            } finally {
              await c.end()
              await db.sql.unsafe(`drop schema if exists ${q(schema)} cascade`)
            }
          },
        ),
        { numRuns: 40 },
      )
      expect(run).toBeGreaterThanOrEqual(40)
      const [sentinel] = await db.sql`select count(*)::int as n from sentinel`
      expect(sentinel?.['n']).toBe(1)
    })
  })

  // Found by the property above: with plain-object rows, `row['__proto__'] = value` set the prototype
  // instead of a property, so a column named __proto__ lost its value. Rows now have no prototype.
  test('a column named __proto__ is stored', async () => {
    await db.sql.unsafe(`create table if not exists proto_col ("__proto__" text, id int primary key)`)
    const id = TEST_DRIVERS.indexOf(driver) + 1
    const em = await EntityManager.connect(db.client(driver, { max: 1 }).client)
    em.create('proto_col', JSON.parse(`{"id": ${id}, "__proto__": "kept"}`) as Record<string, unknown>)
    await em.flush()
    const [row] = await db.sql`select "__proto__" as v from proto_col where id = ${id}`
    expect(row?.['v']).toBe('kept')
  })

  // Found by the "valid values" property: PostgreSQL prints array elements unquoted unless they hold
  // ASCII white space (among others); the array parser trimmed unquoted elements with JavaScript's
  // trim(), which also removes U+00A0, U+3000... It now trims only PostgreSQL's white space.
  test('text[] elements with non-ASCII white space at an end read back exactly', async () => {
    const root = await EntityManager.connect(db.client(driver, { max: 1 }).client)
    const em = root.fork()
    const id = 999_001 + TEST_DRIVERS.indexOf(driver)
    em.create('vals', { id, ta: ['a\u3000', '\u00a0b'] })
    await em.flush()
    const [row] = await root.fork().find('vals', { id })
    expect(row?.['ta']).toEqual(['a\u3000', '\u00a0b'])
  })
})
