import { useTestDatabase } from '@pipeflush/testkit/vitest'
import type postgres from 'postgres'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  castSql,
  decodeValue,
  encodeValue,
  quoteIdentifier,
  quoteTextArrayLiteral,
  sameValue,
  textArrayParam,
} from '../../../src/values/index.ts'
import { buildRows, COLUMNS, ENUM_LABELS, ENUM_SQL } from './samples.ts'

const db = useTestDatabase()

const names = COLUMNS.map((c) => quoteIdentifier(c.model.name))
const { write, read } = buildRows(COLUMNS)
const idColumn = { ...COLUMNS[1]!.model, name: 'id', type: 'int4' as const, sqlType: 'int4', isArray: false }

/** `insert ... select d.c::T from <source> as d(id, c...)`, the shape the planner uses. */
function insertSql(table: string, source: string): string {
  const casts = COLUMNS.map((c, i) => `d.${names[i]}::${castSql(c.model)}`)
  return `insert into ${table} (id, ${names.join(', ')}) select d.id::int4, ${casts.join(', ')} from ${source} as d(id, ${names.join(', ')})`
}

function encodedColumns(): (string | null)[][] {
  const ids = write.map((_, r) => String(r))
  const columns = COLUMNS.map((c, k) =>
    write.map((row, r) => encodeValue(row[k], c.model, { table: 'vals', key: { id: r } })),
  )
  return [ids, ...columns]
}

async function readBack(sql: postgres.Sql, table: string): Promise<(string | null)[][]> {
  const selected = names.map((n) => `${n}::text as ${n}`).join(', ')
  const rows = await sql.unsafe<Record<string, string | null>[]>(
    `select id::text as id, ${selected} from ${table} order by ${table}.id`,
  )
  return rows.map((row) => COLUMNS.map((c) => row[c.model.name] ?? null))
}

function expectExact(texts: (string | null)[][]): void {
  expect(texts).toHaveLength(read.length)
  texts.forEach((row, r) => {
    COLUMNS.forEach((c, k) => {
      const decoded = decodeValue(row[k] ?? null, c.model, { table: 'vals', key: { id: r } })
      const where = `row ${r}, ${c.model.name}, text ${JSON.stringify(row[k])}`
      expect(decoded, where).toStrictEqual(read[r]![k])
      expect(sameValue(decoded, write[r]![k], c.model), `sameValue ${where}`).toBe(true)
    })
  })
}

beforeAll(async () => {
  const labels = ENUM_LABELS.map((l) => `'${l.replace(/'/g, "''")}'`).join(', ')
  await db.sql.unsafe(`create type ${ENUM_SQL} as enum (${labels})`)
  const columns = COLUMNS.map((c) => `${quoteIdentifier(c.model.name)} ${c.ddl}`).join(', ')
  await db.sql.unsafe(`create table vals (id int4 primary key, ${columns})`)
  await db.sql.unsafe('create table vals_simple (like vals)')
})

describe('values round trip through a real PostgreSQL', () => {
  it('covers a scalar and an array column of every type, with NULLs first, last and between', () => {
    expect(COLUMNS).toHaveLength(36)
    expect(read[0]!.every((v) => v === null)).toBe(true)
    expect(read.at(-1)!.every((v) => v === null)).toBe(true)
    expect(idColumn.name).toBe('id')
  })

  it('writes through prepared unnest($n::text[]) parameters and reads back exactly', async () => {
    const params = encodedColumns().map((col) => textArrayParam(col))
    const source = `unnest(${params.map((_, i) => `$${i + 1}::text[]`).join(', ')})`
    await db.sql.unsafe(insertSql('vals', source), params, { prepare: true })
    expectExact(await readBack(db.sql, 'vals'))
  })

  it('writes through the simple-query path with quoted literals and reads back the same', async () => {
    const source = `unnest(${encodedColumns()
      .map((col) => quoteTextArrayLiteral(col))
      .join(', ')})`
    const text = insertSql('vals_simple', source)
    // No parameters: postgres.js sends one simple Query message.
    await db.sql.unsafe(text)
    const texts = await readBack(db.sql, 'vals_simple')
    expectExact(texts)
    expect(texts).toEqual(await readBack(db.sql, 'vals'))
  })

  it('reads the same values whatever the session time zone, bytea_output and client config', async () => {
    const expected = await readBack(db.sql, 'vals')
    const { sql } = db.connect({
      max: 1,
      proxied: false,
      fetch_types: false,
      transform: { undefined: null, column: { from: (x: string) => x } },
      connection: { TimeZone: 'Asia/Kathmandu', bytea_output: 'escape', DateStyle: 'ISO, DMY' },
    })
    const texts = await readBack(sql, 'vals')
    expectExact(texts)
    const zoned = COLUMNS.findIndex((c) => c.model.name === 'c_timestamptz')
    expect(texts.some((row) => row[zoned]?.endsWith('+05:45'))).toBe(true)
    const bytea = COLUMNS.findIndex((c) => c.model.name === 'c_bytea')
    expect(texts.some((row) => row[bytea] === '\\000\\001\\377')).toBe(true)
    expect(texts).not.toEqual(expected)
  })

  it('refuses to decode dates printed with another DateStyle', async () => {
    const { sql } = db.connect({ max: 1, proxied: false, connection: { DateStyle: 'SQL, DMY' } })
    const [row] = await sql.unsafe<{ t: string }[]>(`select '2024-01-02 03:04:05+00'::timestamptz::text as t`)
    const model = COLUMNS.find((c) => c.model.name === 'c_timestamptz')!.model
    expect(() => decodeValue(row!.t, model)).toThrow(/DateStyle ISO/)
  })

  it('has the server reject what the encoder would never send', async () => {
    // Explicit casts to varchar(n) truncate silently; castSql casts to varchar and lets the column check.
    const model = COLUMNS.find((c) => c.model.name === 'c_varchar')!.model
    expect(castSql(model)).toBe('varchar')
    await expect(
      db.sql.unsafe(
        `insert into vals (id, c_varchar) select d.id::int4, d.v::${castSql(model)} from unnest($1::text[], $2::text[]) as d(id, v)`,
        [textArrayParam(['1000']), textArrayParam(['abcdef'])],
        { prepare: true },
      ),
    ).rejects.toMatchObject({ code: '22001' })
  })
})
