import { useTestDatabase } from '@pipeflush/testkit/vitest'
import type postgres from 'postgres'
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeValue, textArrayParam } from '../../../src/values/index.ts'

const db = useTestDatabase()

const INSERT =
  'insert into t (a, b) select d.a::text, d.b::timestamptz from unnest($1::text[], $2::text[]) as d(a, b)'

const at = { table: 't' }
const stamp = encodeValue(
  new Date('2024-01-02T03:04:05.678Z'),
  { name: 'b', type: 'timestamptz' } as never,
  at,
)

/** Element patterns that make postgres.js infer different types for plain JS arrays. */
const PATTERNS: [(string | null)[], (string | null)[]][] = [
  [[], []],
  [[null], [null]],
  [
    [null, null],
    [null, stamp],
  ],
  [
    ['x', null],
    [stamp, null],
  ],
  [
    [null, 'y'],
    [null, null],
  ],
]

/** Parameter types of the prepared statements of this session with that text (as text: fetch_types may be off). */
async function preparedStatements(sql: postgres.Sql, text: string): Promise<string[]> {
  const rows = await sql.unsafe<{ types: string }[]>(
    `select array_to_string(parameter_types::text[], ',') as types from pg_prepared_statements where statement = $1`,
    [text],
  )
  return rows.map((r) => r.types)
}

beforeAll(async () => {
  await db.sql.unsafe(
    'create table t (id int8 generated always as identity primary key, a text, b timestamptz)',
  )
})

describe('textArrayParam keeps one prepared statement per SQL text', () => {
  it('as a plain literal, typed text[] by the server through the $n::text[] cast', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    for (const [a, b] of PATTERNS) {
      await sql.unsafe(INSERT, [textArrayParam(a), textArrayParam(b)], { prepare: true })
    }
    expect(await preparedStatements(sql, INSERT)).toEqual(['text[],text[]'])
  })

  it('typed text[] explicitly (OID 1009) through sql.typed', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    for (const [a, b] of PATTERNS) {
      await sql.unsafe(INSERT, [textArrayParam(a, sql), textArrayParam(b, sql)], { prepare: true })
    }
    expect(await preparedStatements(sql, INSERT)).toEqual(['text[],text[]'])
  })

  it('with fetch_types: false and in a reserved, pipelined burst', async () => {
    const { sql } = db.connect({ max: 1, proxied: false, fetch_types: false })
    // reserve() on a cold pool never settles with fetch_types: false (porsager/postgres#751, #1219).
    await sql`select 1`
    const reserved = await sql.reserve()
    try {
      await Promise.all(
        PATTERNS.map(([a, b]) =>
          reserved.unsafe(INSERT, [textArrayParam(a), textArrayParam(b)], { prepare: true }),
        ),
      )
      expect(await preparedStatements(reserved, INSERT)).toEqual(['text[],text[]'])
    } finally {
      reserved.release()
    }
  })

  it('stores what was written', async () => {
    const rows = await db.sql.unsafe<{ a: string | null; b: string | null }[]>(
      `select a, b::text as b from t where a is not null or b is not null order by t.id limit 4`,
    )
    expect(rows.map((r) => [r.a, r.b])).toEqual([
      [null, '2024-01-02 03:04:05.678+00'],
      ['x', '2024-01-02 03:04:05.678+00'],
      ['y', null],
      [null, '2024-01-02 03:04:05.678+00'],
    ])
  })
})

describe('why (postgres.js 3.4.9 behaviour this module works around)', () => {
  it('types a plain JS array parameter by its first element (why pipeflush sends text[] literals)', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    const text = 'select $1::timestamptz[] as x'
    await sql.unsafe(text, [[null, new Date(0)]], { prepare: true })
    await expect(sql.unsafe(text, [[new Date(0), null]], { prepare: true })).rejects.toMatchObject({
      code: '42846',
    })
  })

  it('sends a plain JS array as "a,b" when fetch_types is false', async () => {
    const { sql } = db.connect({ max: 1, proxied: false, fetch_types: false })
    await expect(sql.unsafe('select $1::text[] as x', [['a', 'b']], { prepare: true })).rejects.toMatchObject(
      {
        code: '22P02',
      },
    )
  })
})
