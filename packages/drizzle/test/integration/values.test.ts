import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { asc } from 'drizzle-orm'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { drizzleOn, EMPTY_TABLES } from '../fixtures/databases.ts'
import { FULL, NULLS } from '../fixtures/kinds-rows.ts'
import { DDL, kinds } from '../fixtures/schema.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(DDL)
})

/**
 * NULL elements of arrays. Drizzle's select reads an unquoted NULL of an array the driver hands
 * over as text (dates and timestamps on node-postgres, most arrays on postgres.js) as the string
 * 'NULL' (then an Invalid Date, NaN...): its array parser does not know NULL. pipeflush reads null,
 * as Drizzle does for the arrays node-postgres parses. (Drizzle's types have no null elements; the
 * database may hold them.)
 */
const NULL_ELEMENTS = {
  id: 3,
  ints: [1, null],
  texts: [null, 'NULL'],
  bigs: [null, 2n],
  stamps: [null],
  days: [null, new Date('2024-01-01T00:00:00Z')],
  moods: [null],
  fixeds: [null],
  docs: [null],
} as unknown as typeof kinds.$inferInsert

const plain = (rows: readonly object[]) => rows.map((r) => ({ ...r }))

describe.each(TEST_DRIVERS)('%s: every column kind of pg-core', (driver) => {
  beforeAll(() => db.sql.unsafe(EMPTY_TABLES))

  test('written by pipeflush, read back unchanged by Drizzle and by pipeflush', async () => {
    const { db: drizzle } = drizzleOn(db, driver)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const { result: created } = await factory.run((em) => [em.create(kinds, FULL), em.create(kinds, NULLS)])
    const selected = await drizzle.select().from(kinds).orderBy(asc(kinds.id))
    const found = await factory.fork().find(kinds)
    expect(plain(found)).toEqual(selected)
    expect(selected[0]).toEqual({ ...FULL, generated: 2 * FULL.int4! })
    expect(selected[1]).toEqual({ ...NULLS, generated: null })
    // The entities created hold what was written (and the server's generated value).
    expect(plain(created)).toEqual(selected)
  })

  test('NULL array elements are null, written and read', async () => {
    const { db: drizzle } = drizzleOn(db, driver)
    const factory = await createEntityManagerFactory({ db: drizzle })
    await factory.run((em) => void em.create(kinds, NULL_ELEMENTS))
    const read = await factory.fork().load(kinds, 3)
    expect(read).toMatchObject(NULL_ELEMENTS)
    const [stored] = await db.sql`select ints::text, texts::text, days::text from kinds where id = 3`
    expect(stored).toEqual({ ints: '{1,NULL}', texts: '{NULL,"NULL"}', days: '{NULL,2024-01-01}' })
  })

  test('char(n) holding characters beyond the Basic Multilingual Plane: padded as the server pads it', async () => {
    await db.sql.unsafe(EMPTY_TABLES)
    const { db: drizzle } = drizzleOn(db, driver)
    await drizzle.insert(kinds).values({ ...NULLS, id: 9, fixed: '😀é', fixeds: ['😀', 'ab'] })
    const factory = await createEntityManagerFactory({ db: drizzle })
    const [selected] = await drizzle.select().from(kinds)
    expect([selected!.fixed, selected!.fixeds]).toEqual(['😀é   ', ['😀  ', 'ab ']])
    expect(plain([await factory.fork().load(kinds, 9)])).toEqual([selected])
  })

  test('written by Drizzle, read by pipeflush as Drizzle reads it', async () => {
    await db.sql.unsafe(EMPTY_TABLES)
    const { db: drizzle } = drizzleOn(db, driver)
    await drizzle.insert(kinds).values([FULL, NULLS])
    const factory = await createEntityManagerFactory({ db: drizzle })
    const selected = await drizzle.select().from(kinds).orderBy(asc(kinds.id))
    const em = factory.fork()
    expect(plain(await em.find(kinds))).toEqual(selected)
    // Loaded and unchanged: nothing to write (every mapped value compares equal to its snapshot).
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    const report = await em.flush()
    expect(report.statements).toBe(0)
  })

  test('each column changed through pipeflush is written as Drizzle reads it', async () => {
    await db.sql.unsafe(EMPTY_TABLES)
    const { db: drizzle } = drizzleOn(db, driver)
    const factory = await createEntityManagerFactory({ db: drizzle })
    await factory.run((em) => void em.create(kinds, NULLS))
    const changed = await factory.run(async (em) => {
      const row = await em.load(kinds, 2)
      em.assign(row, { ...FULL, id: 2 })
      return row
    })
    expect(changed.report.updated).toBe(1)
    const [selected] = await drizzle.select().from(kinds)
    expect(selected).toEqual({ ...FULL, id: 2, generated: 2 * FULL.int4! })
    // An in-place change of a mapped value (a Date, a tuple, a bigint array) is a change too.
    const { report } = await factory.run(async (em) => {
      const row = await em.load(kinds, 2)
      row.stamp!.setUTCFullYear(2000)
      row.spot![0] = 9
      row.bigs!.push(5n)
    })
    expect(report.updated).toBe(1)
    const [after] = await drizzle.select().from(kinds)
    expect(after?.stamp?.getUTCFullYear()).toBe(2000)
    expect(after?.spot).toEqual([9, -2])
    expect(after?.bigs).toEqual([1n, -9223372036854775808n, 5n])
  })

  test('a large insert (sent as COPY, its values checked at the call and written from the rows) is read back by Drizzle as written', async () => {
    await db.sql.unsafe(EMPTY_TABLES)
    const { db: drizzle } = drizzleOn(db, driver)
    // Nothing read back (the generated column's value), so that the insert may go as COPY.
    const factory = await createEntityManagerFactory({ db: drizzle, copyRows: 100, serverValues: false })
    const rows = Array.from({ length: 150 }, (_, i) => ({ ...(i % 2 === 0 ? FULL : NULLS), id: 100 + i }))
    const { result: created, report } = await factory.run((em) => {
      const made = rows.map((r) => em.create(kinds, r))
      expect(
        em
          .plan()
          .waves.flat()
          .map((st) => st.copy === true),
      ).toEqual([true])
      return made
    })
    expect(report.inserted).toBe(150)
    const selected = await drizzle.select().from(kinds).orderBy(asc(kinds.id))
    expect(selected).toHaveLength(150)
    const withoutGenerated = (list: readonly object[]) =>
      plain(list).map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'generated')))
    expect(withoutGenerated(created)).toEqual(withoutGenerated(selected))
    expect(selected[0]).toEqual({ ...FULL, id: 100, generated: 2 * FULL.int4! })
    // Kept as sent, compared as written: a change in place is a change.
    const again = await factory.run(async (em) => {
      const row = await em.load(kinds, 100)
      row.bigs!.push(7n)
    })
    expect(again.report.updated).toBe(1)
  })

  // Drizzle's point and line classes write their text from the value's parts without looking at
  // them: `{ x: 1 }` would reach the server as `(1,undefined)`.
  test.each([
    ['spot', { x: 1, y: 2 }, 'expected [x, y], an array of 2 numbers'],
    ['spot', [1], 'expected [x, y], an array of 2 numbers'],
    ['spot', '1,2', 'expected [x, y], an array of 2 numbers'],
    ['spotXy', { x: 1 }, 'expected { x, y }, an object of 2 numbers'],
    ['spotXy', [1, 2], 'expected { x, y }, an object of 2 numbers'],
    ['path', [1, 2, '3'], 'expected [a, b, c], an array of 3 numbers'],
    ['pathAbc', { a: 1, b: 2 }, 'expected { a, b, c }, an object of 3 numbers'],
  ] as const)(
    'a %s of the wrong shape (%j): INVALID_VALUE naming the column and the shape, nothing sent, the unit fixable',
    async (column, value, expected) => {
      await db.sql.unsafe(EMPTY_TABLES)
      const { db: drizzle } = drizzleOn(db, driver)
      const factory = await createEntityManagerFactory({ db: drizzle })
      const em = factory.fork()
      const row = em.create(kinds, { ...NULLS, id: 7, [column]: value } as typeof kinds.$inferInsert)
      const failed = await em.flush().catch((e: unknown) => e)
      expect(failed).toMatchObject({ code: 'INVALID_VALUE', table: 'kinds', column })
      expect((failed as Error).message).toContain(expected)
      expect(em.pending.inserts).toBe(1)
      ;(row as Record<string, unknown>)[column] =
        column === 'spotXy'
          ? { x: 1, y: 2 }
          : column === 'pathAbc'
            ? { a: 1, b: 2, c: 3 }
            : column === 'path'
              ? [1, 2, 3]
              : [1, 2]
      expect((await em.flush()).inserted).toBe(1)
      const [stored] = await db.sql.unsafe(
        `select ${column === 'spotXy' ? 'spot_xy' : column === 'pathAbc' ? 'path_abc' : column}::text as v from kinds where id = 7`,
      )
      expect(stored?.['v']).toBe(column.startsWith('spot') ? '(1,2)' : '{1,2,3}')
    },
  )
})
