import {
  defineSchema,
  type Entity,
  EntityManager,
  isPipeflushError,
  type ValueMapping,
} from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Rows holding `infinity`, `-infinity` and dates past a JS Date's range in date and timestamp columns.
// pipeflush's own codecs read `infinity` as the largest and smallest Dates (a date as its text), which
// write back as `infinity`. A column whose mapping makes Dates of the server's text (as Drizzle's
// `mode: 'date'` columns do) holds an invalid Date for each: unchanged, it is not written, and the
// unit of work flushes its other changes; a new invalid Date is INVALID_VALUE, nothing sent.
const db = useTestDatabase()

/** The server's text of a timestamp as a Date (`infinity` an invalid one), written as its ISO text. */
const stampAsDate = (read: (text: string) => Date): ValueMapping => ({
  read: (v) => read(v as string),
  write: (v) => (v as Date).toISOString(),
})
/** A date's text as a Date, as Drizzle's `mode: 'date'` dates read it; core's codec writes the Date. */
const dayAsDate: ValueMapping = { read: (v) => new Date(v as string), write: (v) => v }

const schema = defineSchema({
  span: {
    columns: {
      id: 'int4',
      label: 'text',
      ts: { type: 'timestamp', nullable: true },
      tstz: { type: 'timestamptz', nullable: true },
      day: { type: 'date', nullable: true },
      ts_date: {
        sql: 'timestamp',
        text: true,
        mapping: stampAsDate((v) => new Date(`${v.replace(' ', 'T')}Z`)),
        nullable: true,
      },
      tstz_date: { sql: 'timestamptz', text: true, mapping: stampAsDate((v) => new Date(v)), nullable: true },
      day_date: { sql: 'date', mapping: dayAsDate, nullable: true },
    },
    primaryKey: ['id'],
  },
})

const DATES = ['ts', 'tstz', 'day', 'ts_date', 'tstz_date', 'day_date'] as const

/** Ids of a driver's rows: its `infinity`, `-infinity`, past a Date's range, and finite rows. */
function idsOf(driver: DriverName) {
  const base = 10 * (TEST_DRIVERS.indexOf(driver) + 1)
  return { inf: base + 1, negInf: base + 2, far: base + 3, finite: base + 4 }
}

/** A row whose timestamps are `stamp` and whose dates are `day`. */
const row = (id: number, stamp: string, day: string) =>
  `(${id}, 'was', '${stamp}', '${stamp}', '${day}', '${stamp}', '${stamp}', '${day}')`

beforeAll(async () => {
  await db.sql.unsafe(`
create table span (id int primary key, label text not null, ts timestamp, tstz timestamptz, day date,
  ts_date timestamp, tstz_date timestamptz, day_date date);
insert into span values ${TEST_DRIVERS.map((driver) => {
    const ids = idsOf(driver)
    return [
      row(ids.inf, 'infinity', 'infinity'),
      row(ids.negInf, '-infinity', '-infinity'),
      row(ids.finite, '2024-01-02 03:04:05', '2024-01-02'),
    ].join(', ')
  }).join(', ')};
-- Past a Date's range, in the mapped columns only (pipeflush's own timestamp codec does not read them).
insert into span (id, label, ts_date, tstz_date, day_date) values ${TEST_DRIVERS.map(
    (driver) =>
      `(${idsOf(driver).far}, 'was', '294276-12-31 23:59:59', '294276-12-31 23:59:59+00', '5874897-12-31')`,
  ).join(', ')};
`)
})

/** The stored texts of the rows `ids`, by id. */
async function stored(ids: readonly number[]) {
  const rows = await db.sql.unsafe(
    `select id, label, ts::text, tstz::text, day::text, ts_date::text, tstz_date::text, day_date::text
     from span where id in (${ids.join(', ')}) order by id`,
  )
  return rows.map((r) => ({ ...r }))
}

/** Whether `value` is an invalid Date (what `new Date('infinity')` gives). */
const invalid = (value: unknown) => value instanceof Date && Number.isNaN(value.getTime())

describe.each(TEST_DRIVERS)('%s', (driver) => {
  const ids = idsOf(driver)
  const all = [ids.inf, ids.negInf, ids.far, ids.finite]

  async function setup() {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client, { schema })
    return { ...c, root }
  }

  test('infinity read by the own codecs as the largest and smallest Dates (dates as text), by a Date mapping as invalid Dates', async () => {
    const { root } = await setup()
    const em = root.fork()
    const [inf, negInf, far] = await Promise.all(
      [ids.inf, ids.negInf, ids.far].map((id) => em.load('span', id)),
    )
    expect(inf).toMatchObject({ ts: new Date(8.64e15), tstz: new Date(8.64e15), day: 'infinity' })
    expect(negInf).toMatchObject({ ts: new Date(-8.64e15), tstz: new Date(-8.64e15), day: '-infinity' })
    for (const e of [inf, negInf, far])
      expect(['ts_date', 'tstz_date', 'day_date'].map((c) => invalid(e![c]))).toEqual([true, true, true])
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    expect((await em.flush()).statements).toBe(0)
  })

  test('rows holding them loaded unchanged: another row and another column of theirs written, nothing else', async () => {
    const { root } = await setup()
    const before = await stored(all)
    const em = root.fork()
    const rows = await em.find('span', { id: all })
    const byId = (id: number) => rows.find((r) => r['id'] === id)!
    byId(ids.finite)['label'] = 'finite changed'
    byId(ids.inf)['label'] = 'infinity changed'
    byId(ids.far)['label'] = 'far changed'
    const updates = em.plan().waves.flat()
    expect(updates.map((s) => [s.kind, s.columns])).toEqual([['update', ['label']]])
    expect(updates[0]!.rowCount).toBe(3)
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
    // Still unchanged after the flush: the next flush sends nothing.
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    expect((await em.flush()).statements).toBe(0)
  })

  test('such a row with date columns changed: the largest Date written as infinity, the unchanged invalid Dates not written', async () => {
    const { root } = await setup()
    const em = root.fork()
    const negInf = await em.load('span', ids.negInf)
    negInf!['ts'] = new Date(8.64e15)
    negInf!['day'] = 'infinity'
    negInf!['tstz_date'] = new Date('2024-05-06T07:08:09.010Z')
    expect(
      em
        .plan()
        .waves.flat()
        .map((s) => [s.kind, s.columns]),
    ).toEqual([['update', ['ts', 'day', 'tstz_date']]])
    await em.flush()
    const [after] = await stored([ids.negInf])
    expect(after).toMatchObject({
      ts: 'infinity',
      tstz: '-infinity',
      day: 'infinity',
      ts_date: '-infinity',
      tstz_date: '2024-05-06 07:08:09.01+00',
      day_date: '-infinity',
    })
    await db.sql.unsafe(
      `update span set ts = '-infinity', day = '-infinity', tstz_date = '-infinity' where id = ${ids.negInf}`,
    )
  })

  test.each(DATES)(
    'a new invalid Date in %s of a row holding a valid one: INVALID_VALUE, nothing sent',
    async (column) => {
      const { root, counter } = await setup()
      const em = root.fork()
      const before = await stored([ids.finite, ids.inf])
      const [finite, inf] = await Promise.all([em.load('span', ids.finite), em.load('span', ids.inf)])
      inf!['label'] = 'not written'
      finite!['label'] = 'not written'
      ;(finite as Entity)[column] = new Date(Number.NaN)
      const bytes = counter.read().bytesOut
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_VALUE')).toBe(true)
      expect(error).toMatchObject({ table: 'span', column, keys: [ids.finite] })
      expect(counter.read().bytesOut).toBe(bytes)
      expect(await stored([ids.finite, ids.inf])).toEqual(before)
    },
  )
})
