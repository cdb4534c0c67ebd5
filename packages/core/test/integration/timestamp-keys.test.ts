import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'
import { connectOn, schemaOf as schemaFor } from './fixtures/schema-client.ts'

// Keys holding a timestamp with microseconds (Pagila's payment: `primary key (payment_date,
// payment_id)`, its dates from now()). A Date holds milliseconds; the stored microseconds are kept
// beside it, so the row is found again by its key, told apart from a row a microsecond away, and
// referenced by its key.
const db = useTestDatabase()

function schemaOf(driver: DriverName): string {
  return schemaFor('tskeys', driver)
}

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf(driver)
    await db.sql.unsafe(`
create schema "${s}";
create table "${s}".payment (payment_date timestamptz, payment_id int, amount numeric(5,2) not null,
  primary key (payment_date, payment_id));
create table "${s}".refund (id serial primary key, payment_date timestamptz not null, payment_id int not null,
  foreign key (payment_date, payment_id) references "${s}".payment);
create table "${s}".shift (starts timestamp primary key, label text not null);
insert into "${s}".payment values
  ('2022-01-24 21:40:19.596521+00', 1, 2.99),
  ('2022-01-24 21:40:19.596522+00', 1, 4.99),
  ('2022-01-25 10:00:00.000001+00', 2, 0.99),
  ('2022-01-26 10:00:00+00', 3, 1.99);
insert into "${s}".shift values ('2022-01-24 08:00:00.123456', 'early');
create table "${s}".seen (id int primary key, at timestamptz not null);
insert into "${s}".seen values (1, '2022-01-01 00:00:00.000001+00');
`)
  }
})

async function setup(driver: DriverName, options: { copyRows?: number } = {}) {
  const schema = schemaOf(driver)
  return { ...(await connectOn(db, driver, schema, options)), schema }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('rows keyed by timestamps a microsecond apart: two entities, each updated, removed and referenced by its own key', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const rows = await em.find('payment', { payment_id: 1 })
    expect(rows).toHaveLength(2)
    expect(rows[0]).not.toBe(rows[1])
    expect(rows.map((r) => r['amount']).sort()).toEqual(['2.99', '4.99'])
    const [first, second] = rows[0]!['amount'] === '2.99' ? rows : [rows[1]!, rows[0]!]
    // The Date is the millisecond; the application sees nothing else.
    expect(first!['payment_date']).toEqual(new Date('2022-01-24T21:40:19.596Z'))
    expect(Object.keys(first!['payment_date'] as Date)).toEqual([])
    first!['amount'] = '3.50'
    em.remove(second!)
    const [micro] = await em.find('payment', { payment_id: 2 })
    em.create('refund', { payment_date: micro!['payment_date'], payment_id: 2 })
    const [shift] = await em.find('shift', {})
    shift!['label'] = 'late'
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, updated: 2, deleted: 1, inserted: 1 })
    const stored = await db.sql.unsafe(
      `select payment_date::text as at, amount::text from "${schema}".payment where payment_id = 1`,
    )
    expect(stored.map((r) => ({ ...r }))).toEqual([{ at: '2022-01-24 21:40:19.596521+00', amount: '3.50' }])
    const [refund] = await db.sql.unsafe(`select payment_date::text as at from "${schema}".refund`)
    expect(refund!['at']).toBe('2022-01-25 10:00:00.000001+00')
    const [s] = await db.sql.unsafe(`select label from "${schema}".shift`)
    expect(s!['label']).toBe('late')
    // Found again by that key in the unit of work, without a query.
    counter.reset()
    expect(await em.load('payment', { payment_date: first!['payment_date'], payment_id: 1 })).toBe(first)
    expect(counter.read().roundTrips).toBe(0)
  })

  test('new rows given a key Date read with microseconds, by COPY and by INSERT: stored with them, then updated by that key; two such rows removed together', async () => {
    for (const copyRows of [2, 1000]) {
      const { root, schema } = await setup(driver, { copyRows })
      const em = root.fork()
      const [micro] = await em.find('payment', { payment_id: 2 })
      const at = micro!['payment_date']
      const base = copyRows === 2 ? 100 : 200
      const made = [0, 1, 2].map((i) =>
        em.create('payment', { payment_date: at, payment_id: base + i, amount: '1' }),
      )
      await em.flush()
      for (const row of made) row['amount'] = '2'
      const report = await em.flush()
      expect(report.updated).toBe(3)
      const stored = await db.sql.unsafe(
        `select payment_date::text as at, amount::text from "${schema}".payment where payment_id between ${base} and ${base + 2}`,
      )
      expect(stored.map((r) => ({ ...r }))).toEqual(
        [0, 1, 2].map(() => ({ at: '2022-01-25 10:00:00.000001+00', amount: '2.00' })),
      )
      em.remove(made[0]!)
      em.remove(made[1]!)
      expect((await em.flush()).deleted).toBe(2)
    }
  })

  test('a new Date of a read one, or a read Date changed in place: written at its millisecond, the microseconds read with it forgotten', async () => {
    const { root, schema } = await setup(driver)
    const em = root.fork()
    const [row] = await em.find('payment', { payment_id: 2 })
    const copy = new Date(row!['payment_date'] as Date) // the millisecond only: another key
    em.create('payment', { payment_date: copy, payment_id: 2, amount: '1' })
    const [seen] = await em.find('seen', { id: 1 })
    const at = seen!['at'] as Date
    at.setTime(at.getTime() + 1000)
    await em.flush()
    const dates = await db.sql.unsafe(
      `select payment_date::text as at from "${schema}".payment where payment_id = 2 order by 1`,
    )
    expect(dates.map((r) => r['at'])).toEqual(['2022-01-25 10:00:00+00', '2022-01-25 10:00:00.000001+00'])
    const [stored] = await db.sql.unsafe(`select at::text from "${schema}".seen`)
    expect(stored!['at']).toBe('2022-01-01 00:00:01+00')
  })
})
