import { isPipeflushError } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { date, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

// `mode: 'date'` columns of rows holding `infinity`, `-infinity` and dates past a JS Date's range.
// Drizzle's `new Date` of the server's text gives an invalid Date for most (and 2000-01-01 for a
// timestamp's `infinity`); pipeflush reads `infinity` and `-infinity` as core does, the largest and
// smallest Dates, written back as them. A date past a Date's range is an invalid Date: unchanged, it is
// not written, and the unit of work flushes its other changes; a new invalid Date is INVALID_VALUE.
const db = useTestDatabase()

const spans = pgTable('inf_span', {
  id: integer('id').primaryKey(),
  label: text('label').notNull(),
  stamp: timestamp('stamp', { mode: 'date' }),
  stampTz: timestamp('stamp_tz', { mode: 'date', withTimezone: true }),
  day: date('day', { mode: 'date' }),
  stamps: timestamp('stamps', { mode: 'date', withTimezone: true }).array(),
  days: date('days', { mode: 'date' }).array(),
})

const schema = { spans }
const DATES = ['stamp', 'stampTz', 'day'] as const

/** Ids of a driver's rows: its `infinity`, `-infinity`, past a Date's range, and finite rows. */
function idsOf(driver: DriverName) {
  const base = 10 * (TEST_DRIVERS.indexOf(driver) + 1)
  return { inf: base + 1, negInf: base + 2, far: base + 3, finite: base + 4 }
}

/** A row whose timestamps are `stamp` and whose dates are `day`, arrays of them beside `infinity`. */
const row = (id: number, stamp: string, stampTz: string, day: string) =>
  `(${id}, 'was', '${stamp}', '${stampTz}', '${day}', '{"${stampTz}",infinity}', '{"${day}",-infinity}')`

beforeAll(async () => {
  await db.sql.unsafe(`
create table inf_span (id int primary key, label text not null, stamp timestamp, stamp_tz timestamptz,
  day date, stamps timestamptz[], days date[]);
insert into inf_span values ${TEST_DRIVERS.map((driver) => {
    const ids = idsOf(driver)
    return [
      row(ids.inf, 'infinity', 'infinity', 'infinity'),
      row(ids.negInf, '-infinity', '-infinity', '-infinity'),
      row(ids.far, '294276-12-31 23:59:59', '294276-12-31 23:59:59+00', '5874897-12-31'),
      row(ids.finite, '2024-01-02 03:04:05', '2024-01-02 03:04:05+00', '2024-01-02'),
    ].join(', ')
  }).join(', ')};
`)
})

/** The stored texts of the rows `ids`, by id. */
async function stored(ids: readonly number[]) {
  const rows = await db.sql.unsafe(
    `select id, label, stamp::text, stamp_tz::text, day::text, stamps::text, days::text
     from inf_span where id in (${ids.join(', ')}) order by id`,
  )
  return rows.map((r) => ({ ...r }))
}

/** Whether `value` is an invalid Date. */
const invalid = (value: unknown) => value instanceof Date && Number.isNaN(value.getTime())

describe.each(TEST_DRIVERS)('%s', (driver) => {
  const ids = idsOf(driver)
  const all = [ids.inf, ids.negInf, ids.far, ids.finite]

  async function setup() {
    const client = db.client(driver, { max: 1 })
    const drizzle =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client.client as postgres.Sql, { schema })
        : drizzlePg(client.client as pg.Pool, { schema })
    return { ...client, factory: await createEntityManagerFactory({ db: drizzle }) }
  }

  test('infinity read as the largest and smallest Dates, past a Date as an invalid Date; nothing to write', async () => {
    const { factory } = await setup()
    const em = factory.fork()
    const [inf, negInf, far] = await Promise.all(
      [ids.inf, ids.negInf, ids.far].map((id) => em.load(spans, id)),
    )
    const largest = new Date(8.64e15)
    const smallest = new Date(-8.64e15)
    expect(inf).toMatchObject({ stamp: largest, stampTz: largest, day: largest })
    expect(negInf).toMatchObject({ stamp: smallest, stampTz: smallest, day: smallest })
    expect(inf!.stamps).toEqual([largest, largest])
    expect(inf!.days).toEqual([largest, smallest])
    expect(DATES.map((c) => invalid(far![c]))).toEqual([true, true, true])
    expect(invalid(far!.stamps![0])).toBe(true)
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    expect((await em.flush()).statements).toBe(0)
  })

  test('rows holding them loaded unchanged: another row and another column of theirs written, nothing else', async () => {
    const { factory } = await setup()
    const before = await stored(all)
    const em = factory.fork()
    const rows = await em.find(spans, { id: all })
    const byId = (id: number) => rows.find((r) => r.id === id)!
    byId(ids.finite).label = 'finite changed'
    byId(ids.inf).label = 'infinity changed'
    byId(ids.far).label = 'far changed'
    const updates = em.plan().waves.flat()
    expect(updates.map((s) => [s.kind, s.columns, s.rowCount])).toEqual([['update', ['label'], 3]])
    const report = await em.flush()
    expect(report).toMatchObject({ updated: 3, statements: 1 })
    const labels: Record<number, string> = {
      [ids.finite]: 'finite changed',
      [ids.inf]: 'infinity changed',
      [ids.far]: 'far changed',
    }
    expect(await stored(all)).toEqual(
      before.map((r) => ({ ...r, label: labels[r['id'] as number] ?? 'was' })),
    )
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    expect((await em.flush()).statements).toBe(0)
  })

  test('the largest and smallest Dates written as infinity and -infinity, arrays too', async () => {
    const { factory } = await setup()
    const em = factory.fork()
    const [finite, negInf] = await Promise.all([em.load(spans, ids.finite), em.load(spans, ids.negInf)])
    finite!.stamp = new Date(8.64e15)
    finite!.stampTz = new Date(-8.64e15)
    finite!.day = new Date(8.64e15)
    finite!.stamps = [new Date(-8.64e15), new Date('2024-05-06T07:08:09.010Z')]
    finite!.days = [new Date(8.64e15)]
    negInf!.stamp = new Date(8.64e15)
    await em.flush()
    const [negInfRow, finiteRow] = await stored([ids.negInf, ids.finite])
    expect(finiteRow).toMatchObject({
      stamp: 'infinity',
      stamp_tz: '-infinity',
      day: 'infinity',
      stamps: '{-infinity,"2024-05-06 07:08:09.01+00"}',
      days: '{infinity}',
    })
    expect(negInfRow).toMatchObject({ stamp: 'infinity', stamp_tz: '-infinity', day: '-infinity' })
    const again = await factory.fork().load(spans, ids.finite)
    expect(again).toMatchObject({ stamp: finite!.stamp, stampTz: finite!.stampTz, day: finite!.day })
    await db.sql.unsafe(`
update inf_span set stamp = '2024-01-02 03:04:05', stamp_tz = '2024-01-02 03:04:05+00', day = '2024-01-02',
  stamps = '{"2024-01-02 03:04:05+00",infinity}', days = '{2024-01-02,-infinity}' where id = ${ids.finite};
update inf_span set stamp = '-infinity' where id = ${ids.negInf}`)
  })

  test.each(DATES)(
    'a new invalid Date in %s of a row holding a valid one: INVALID_VALUE, nothing sent',
    async (column) => {
      const { factory, counter } = await setup()
      const before = await stored([ids.finite, ids.far])
      const em = factory.fork()
      const [finite, far] = await Promise.all([em.load(spans, ids.finite), em.load(spans, ids.far)])
      far!.label = 'not written'
      finite!.label = 'not written'
      finite![column] = new Date(Number.NaN)
      const bytes = counter.read().bytesOut
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_VALUE')).toBe(true)
      expect(error).toMatchObject({ table: 'spans', column, keys: [ids.finite] })
      expect(counter.read().bytesOut).toBe(bytes)
      expect(await stored([ids.finite, ids.far])).toEqual(before)
    },
  )
})
