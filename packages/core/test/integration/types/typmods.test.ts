import {
  type ColumnModel,
  defineSchema,
  isPipeflushError,
  type PipelineMode,
  readSchema,
  type TableModel,
} from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { quoteStringLiteral } from '../../../src/values/index.ts'
import { openClient } from './open-client.ts'

/**
 * Columns whose typmod matters (lengths, precisions, interval fields), written through pipeflush and
 * compared with the same text inserted as a SQL literal, which the type's input function reads with
 * the column's typmod: pipeflush must store exactly what the literal stores, never a truncated value,
 * and reject what the literal rejects. Through a schema read from the catalog and one declared with
 * `{ sql }`, in every mode.
 */
const db = useTestDatabase()

interface Sample {
  readonly write: unknown
  readonly literal: string
}
const s = (literal: string): Sample => ({ write: literal, literal })

interface TypmodColumn {
  readonly sql: string
  readonly samples: readonly Sample[]
  /** Texts the column rejects (a literal is rejected too), never truncated. */
  readonly bad?: readonly Sample[]
  /** The column rounds what is written (a precision): rows are found by the value read, not the one written. */
  readonly rounds?: true
  /**
   * pipeflush itself refuses the bad texts, scalar or array element (`INVALID_VALUE`, nothing sent);
   * the server refuses the others (`STATEMENT_FAILED`).
   */
  readonly checked?: true
}

const COLUMNS: readonly TypmodColumn[] = [
  { sql: 'bit(3)', samples: [s('101'), s('000')], bad: [s('1010'), s('10')] },
  { sql: 'bit varying(3)', samples: [s('101'), s('1'), s('')], bad: [s('1010')] },
  {
    sql: 'numeric(5,2)',
    samples: [s('1.005'), s('-999.994'), s('12')],
    bad: [s('1000'), s('999.995'), s('-1e3')],
    rounds: true,
    checked: true,
  },
  // A negative scale rounds to hundreds; a scale above the precision holds small values only.
  {
    sql: 'numeric(3,-2)',
    samples: [s('12349'), s('-99949')],
    bad: [s('99950')],
    rounds: true,
    checked: true,
  },
  {
    sql: 'numeric(3,5)',
    samples: [s('0.00012'), s('-0.009994')],
    bad: [s('0.01')],
    rounds: true,
    checked: true,
  },
  {
    sql: 'timestamp(2) without time zone',
    samples: [{ write: new Date('2024-01-02T03:04:05.675Z'), literal: '2024-01-02 03:04:05.675' }],
    rounds: true,
  },
  {
    sql: 'timestamp(0) with time zone',
    samples: [{ write: new Date('2024-01-02T03:04:05.5Z'), literal: '2024-01-02 03:04:05.5+00' }],
    rounds: true,
  },
  { sql: 'time(2) without time zone', samples: [s('03:04:05.678901'), s('23:59:59.999')], rounds: true },
  { sql: 'time(1) with time zone', samples: [s('03:04:05.66+02')], rounds: true },
  { sql: 'interval(2)', samples: [s('1.23456 seconds'), s('1 day 0.005 sec')], rounds: true },
  { sql: 'interval year', samples: [s('1'), s('2 years 11 months'), s('1.5')], rounds: true },
  { sql: 'interval month', samples: [s('3'), s('1 year 2 months 3 days')], rounds: true },
  { sql: 'interval day to hour', samples: [s('1 2'), s('3 days 04:05:06')], rounds: true },
  { sql: 'interval minute to second(3)', samples: [s('1:2'), s('1:2.34567')], rounds: true },
  { sql: 'interval hour to second', samples: [s('1:2'), s('1:2:3.5')] },
  // Exact under the fields: found by the text written, which the where clause reads with the typmod too.
  { sql: 'interval year to month', samples: [s('1'), s('1-2')] },
  { sql: 'interval day to second', samples: [s('1 2:3:4'), s('5')] },
  // Spaces past the length are dropped by the assignment, as they are from a literal.
  {
    sql: 'character varying(5)',
    samples: [s('abc'), s('abcde'), s('abcde  '), s('ab    ')],
    bad: [s('abcdef'), s('abcde x')],
    checked: true,
  },
  {
    sql: 'character(3)',
    samples: [s('ab'), s('abc'), s('abc  ')],
    bad: [s('abcd'), s('abc d')],
    checked: true,
  },
  { sql: 'real', samples: [{ write: 0.1, literal: '0.1' }] },
  { sql: 'pf_years', samples: [s('1'), s('3 years 4 months')] },
  { sql: 'pf_bits', samples: [s('11')], bad: [s('111')] },
]

/** How the declared schema spells a domain column: the type it is over (see `SqlColumnSpec`). */
const DECLARED_AS: Readonly<Record<string, string>> = { pf_years: 'interval year', pf_bits: 'bit(2)' }

const names = COLUMNS.map((_, i) => `c${i}`)
const ddl = COLUMNS.map((c, i) => `c${i} ${c.sql}, c${i}a ${c.sql}[]`).join(', ')

beforeAll(async () => {
  await db.sql.unsafe(`
    create domain pf_years as interval year;
    create domain pf_bits as bit(2);
    create table tm (id int4 primary key, ${ddl});
    create table tm_ref (id int4 primary key, ${ddl});
  `)
})

/** The tables declared in code, every column by its SQL name. */
const declared = () => {
  const table = {
    columns: Object.fromEntries([
      ['id', 'int4'],
      ...COLUMNS.flatMap((c, i) => {
        const sql = DECLARED_AS[c.sql] ?? c.sql
        return [
          [`c${i}`, { sql, nullable: true }],
          [`c${i}a`, { sql: `${sql}[]`, nullable: true }],
        ]
      }),
    ]),
    primaryKey: ['id'],
  }
  return defineSchema({ tm: table, tm_ref: table })
}

/**
 * The literal rows: what the input function makes of each text with the column's typmod. Scalars only:
 * PostgreSQL reads an array literal's elements without the column's interval fields (a literal '{1}'
 * stores `{00:00:00}` in an `interval year[]`, and '{"1 2"}' is an error in an `interval day to hour[]`),
 * while pipeflush reads each element like a scalar of the column; arrays are compared with the scalars.
 */
async function insertReference(id: number, pick: (c: TypmodColumn) => Sample) {
  const values = COLUMNS.map((c) => quoteStringLiteral(pick(c).literal))
  const list = COLUMNS.map((_, i) => `c${i}`).join(', ')
  // Literals, not parameters: a parameter is read without the column's typmod (interval year '1' would be a second).
  await db.sql.unsafe(`insert into tm_ref (id, ${list}) values (${id}, ${values.join(', ')})`)
}

/** The values a row of `tm` must read: the reference row's scalars, and `[scalar, null]` arrays. */
function expected(reference: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    names.flatMap((n) => [[n, reference[n]] as const, [`${n}a`, [reference[n], null]] as const]),
  )
}

function pickRow(pick: (c: TypmodColumn) => Sample): Record<string, unknown> {
  return Object.fromEntries(
    COLUMNS.flatMap((c, i) => {
      const { write } = pick(c)
      return [
        [`c${i}`, write],
        [`c${i}a`, [write, null]],
      ]
    }),
  )
}

function valuesOf(entity: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    names.flatMap((n) => [[n, entity[n]] as const, [`${n}a`, entity[`${n}a`]] as const]),
  )
}

const RUNS: readonly (readonly ['catalog' | 'declared', PipelineMode])[] = [
  ['catalog', 'off'],
  ['catalog', 'waves'],
  ['catalog', 'burst'],
  ['declared', 'burst'],
  ['declared', 'off'],
]

describe.each(
  TEST_DRIVERS.flatMap((driver, d) =>
    RUNS.map(([source, pipeline], r) => [driver, source, pipeline, 100 * (d * RUNS.length + r)] as const),
  ),
)('%s, schema from the %s, %s', (driver, source, pipeline, base) => {
  test('stores exactly what a literal stores, finds by it, and rejects what a literal rejects', async () => {
    const { root } = await openClient(db, {
      pipeline,
      driver: driver as DriverName,
      ...(source === 'declared' ? { schema: declared() } : {}),
    })
    const rounds = Math.max(...COLUMNS.map((c) => c.samples.length))
    const pick = (k: number) => (c: TypmodColumn) => c.samples[k % c.samples.length]!
    // Inserted (rows base+k), and updated from NULL (rows base+50+k).
    const em = root.fork()
    for (let k = 0; k < rounds; k++) {
      em.create('tm', { id: base + k, ...pickRow(pick(k)) })
      em.create('tm', { id: base + 50 + k })
      await insertReference(base + k, pick(k))
    }
    await em.flush()
    const edit = root.fork()
    for (let k = 0; k < rounds; k++) {
      const [entity] = await edit.find('tm', { id: base + 50 + k })
      Object.assign(entity!, pickRow(pick(k)))
    }
    await edit.flush()
    const check = root.fork()
    for (let k = 0; k < rounds; k++) {
      const [want] = await check.find('tm_ref', { id: base + k })
      for (const id of [base + k, base + 50 + k]) {
        const [got] = await check.find('tm', { id })
        expect(valuesOf(got!), `row ${id}`).toStrictEqual(expected(want!))
      }
      // Found by the text written, read with the typmod too (`interval year` '1' is a year); by the value
      // read where the column rounds.
      for (const [i, c] of COLUMNS.entries()) {
        const value = c.rounds ? want![`c${i}`] : pick(k)(c).write
        const found = await check.find('tm', { [`c${i}`]: value, id: base + k })
        expect(found.length, `find ${c.sql} = ${String(value)}`).toBe(1)
      }
    }

    // What the literal rejects is rejected (never truncated), nothing is committed, and the unit of work is fixable.
    for (const [i, c] of COLUMNS.entries()) {
      for (const bad of c.bad ?? []) {
        await expect(
          db.sql.unsafe(`insert into tm_ref (id, c${i}) values (-1, ${quoteStringLiteral(bad.literal)})`),
          `${c.sql} literal ${bad.literal}`,
        ).rejects.toThrow()
        // The scalar, then an array's element (checked by pipeflush only where it checks the scalar).
        for (const column of c.checked ? [`c${i}`, `c${i}a`] : [`c${i}`]) {
          const fix = root.fork()
          const array = column.endsWith('a')
          const entity = fix.create('tm', { id: base + 90, [column]: array ? [null, bad.write] : bad.write })
          const error = await fix.flush().then(
            () => undefined,
            (e: unknown) => e,
          )
          expect(isPipeflushError(error), `${c.sql}: ${String(error)}`).toBe(true)
          const codes = c.checked ? ['INVALID_VALUE'] : ['INVALID_VALUE', 'STATEMENT_FAILED']
          expect(codes, `${column} ${c.sql} = ${String(bad.write)}`).toContain(
            (error as { code: string }).code,
          )
          entity[column] = array ? [c.samples[0]!.write] : c.samples[0]!.write
          expect((await fix.flush()).inserted).toBe(1)
          const cleanup = root.fork()
          cleanup.remove((await cleanup.find('tm', { id: base + 90 }))[0]!)
          await cleanup.flush()
        }
      }
    }
  })
})

test('a schema declared with the SQL names of the columns equals the schema read from the catalog', async () => {
  const { sql } = db.connect({ max: 1, proxied: false })
  const read = (await readSchema(sql)).tables.get('tm')!
  const mine = declared().tables.get('tm')!
  const shape = (t: TableModel) =>
    t.columns.map((c: ColumnModel) => ({
      name: c.name,
      type: c.type,
      isArray: c.isArray,
      castType: c.castType,
      inputTypmod: c.inputTypmod,
      maxLength: c.maxLength,
      numericTypmod: c.numericTypmod,
      arrayDelimiter: c.arrayDelimiter,
    }))
  expect(shape(mine)).toEqual(shape(read))
  await sql.end({ timeout: 1 })
})
