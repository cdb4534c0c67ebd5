import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { connectOn, schemaOf as schemaFor } from './fixtures/schema-client.ts'

// Rows another writer stored with a float key of `NaN` or `±Infinity` (pipeflush never writes one: a
// new value must be finite) are read, loaded by their key, updated and removed; and a key given to
// load that cannot be sent fails that load alone, the other loads of its tick going on.
const db = useTestDatabase()

function schemaOf(driver: DriverName): string {
  return schemaFor('float_keys', driver)
}

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf(driver)
    await db.sql.unsafe(`
create schema "${s}";
create table "${s}".reading (id float8 primary key, label text not null);
create table "${s}".single (id float4 primary key, label text not null);
create table "${s}".code (id varchar(3) primary key, label text not null);
insert into "${s}".reading values (1, 'one'), ('NaN', 'nan'), ('Infinity', 'inf'), ('-Infinity', 'neg');
insert into "${s}".single values (2, 'two'), ('Infinity', 'inf');
insert into "${s}".code values ('abc', 'three');
`)
  }
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('rows keyed NaN and ±Infinity load by key in one round trip, and are updated and removed', async () => {
    const { root, counter } = await connectOn(db, driver, schemaOf(driver))
    const em = root.fork()
    counter.reset()
    const [one, inf, nan, neg, single] = await Promise.all([
      em.load('reading', 1),
      em.load('reading', Number.POSITIVE_INFINITY),
      em.load('reading', Number.NaN),
      em.load('reading', Number.NEGATIVE_INFINITY),
      em.load('single', Number.POSITIVE_INFINITY),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect([one, inf, nan, neg, single].map((e) => e['label'])).toEqual(['one', 'inf', 'nan', 'neg', 'inf'])
    inf['label'] = 'infinite'
    nan['label'] = 'not a number'
    single['label'] = 'single infinite'
    em.remove(neg)
    counter.reset()
    const report = await em.flush()
    expect(report.roundTrips).toBe(1)
    expect(counter.read().roundTrips).toBe(1)
    const s = schemaOf(driver)
    const rows = await db.sql.unsafe(`select id::text as id, label from "${s}".reading order by id`)
    expect(rows.map((r) => [r['id'], r['label']])).toEqual([
      ['1', 'one'],
      ['Infinity', 'infinite'],
      ['NaN', 'not a number'],
    ])
    const [stored] = await db.sql.unsafe(`select label from "${s}".single where id = 'Infinity'`)
    expect(stored!['label']).toBe('single infinite')
    // Put back for the next run of the file.
    await db.sql.unsafe(
      `update "${s}".reading set label = case id when 'Infinity' then 'inf' else 'nan' end where id in ('NaN', 'Infinity');
       insert into "${s}".reading values ('-Infinity', 'neg');
       update "${s}".single set label = 'inf' where id = 'Infinity'`,
    )
  })

  test('a key given to load that cannot be sent fails that load alone: the others of its tick are read', async () => {
    const { root, counter } = await connectOn(db, driver, schemaOf(driver))
    const em = root.fork()
    counter.reset()
    const [fits, tooLong, one] = await Promise.allSettled([
      em.load('code', 'abc'),
      em.load('code', 'abcd'),
      em.load('reading', 1),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(fits.status === 'fulfilled' && fits.value['label']).toBe('three')
    expect(one.status === 'fulfilled' && one.value['label']).toBe('one')
    expect(tooLong.status).toBe('rejected')
    const error = (tooLong as PromiseRejectedResult).reason as { code: string; message: string }
    expect(error.code).toBe('INVALID_VALUE')
    expect(error.message).toContain('the key given to load')
  })
})
