import { relationsOf } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { connectOn, schemaOf as schemaFor } from './fixtures/schema-client.ts'

// A primary key of an array type (int[] has a btree equality): the key is one array, not a list of
// keys. load() sends it as the column's type, alone, with other loads of its tick, and in a composite key.
const db = useTestDatabase()

function schemaOf(driver: DriverName): string {
  return schemaFor('arraykeys', driver)
}

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf(driver)
    await db.sql.unsafe(`
create schema "${s}";
create table "${s}".arr (id int[] primary key, v text);
insert into "${s}".arr values ('{1,2}', 'a'), ('{3}', 'b'), ('{}', 'empty'), ('{4,NULL}', 'null inside'), ('{2,1}', 'reversed');
create table "${s}".child (id serial primary key, arr_id int[] references "${s}".arr, n text);
insert into "${s}".child (arr_id, n) values ('{1,2}', 'c1'), ('{1,2}', 'c2');
create table "${s}".tagged (tenant int, tags text[], v text, primary key (tenant, tags));
insert into "${s}".tagged values (1, '{"a,b","c\\"d"}', 'quoted'), (1, '{x}', 'x'), (2, '{x}', 'x2');
`)
  }
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('load by an int[] key, by its value or an object of it, one at a time and many in one tick', async () => {
    const { root, counter } = await connectOn(db, driver, schemaOf(driver))
    expect((await root.fork().load('arr', [1, 2]))['v']).toBe('a')
    expect((await root.fork().load('arr', { id: [1, 2] }))['v']).toBe('a')
    expect((await root.fork().load('arr', []))['v']).toBe('empty')
    expect((await root.fork().load('arr', [4, null]))['v']).toBe('null inside')
    await expect(root.fork().load('arr', [9])).rejects.toMatchObject({ code: 'NOT_FOUND' })

    const em = root.fork()
    counter.reset()
    const loads = await Promise.all(
      [[1, 2], [3], [2, 1], [], [4, null], [1, 2]].map((k) => em.load('arr', k)),
    )
    expect(counter.read().roundTrips).toBe(1)
    expect(loads.map((e) => e['v'])).toEqual(['a', 'b', 'reversed', 'empty', 'null inside', 'a'])
    expect(loads[5]).toBe(loads[0])
    expect(await em.load('arr', [3])).toBe(loads[1]) // from the identity map
    const missing = await Promise.all([em.load('arr', [9]).catch((e: unknown) => e), em.load('arr', [3])])
    expect(missing[0]).toMatchObject({ code: 'NOT_FOUND' })
  })

  test('load by an int[] key with relations or a lock (one statement by key), change and remove', async () => {
    const { root } = await connectOn(db, driver, schemaOf(driver))
    const rel = [...relationsOf((root as unknown as { schema: never }).schema, 'arr').keys()][0]!
    const em = root.fork()
    const a = await em.load('arr', [1, 2], { with: { [rel]: true } })
    expect((a[rel] as { n: string }[]).map((c) => c.n).sort()).toEqual(['c1', 'c2'])

    const locking = root.fork()
    const locked = await locking.load('arr', [3], { lock: 'update' })
    expect(locked['v']).toBe('b')
    locked['v'] = 'b2'
    await locking.flush()
    expect((await root.fork().load('arr', [3]))['v']).toBe('b2')

    const removing = root.fork()
    removing.remove(await removing.load('arr', [2, 1]))
    await removing.flush()
    await expect(root.fork().load('arr', [2, 1])).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  test('a value that is no int[] is INVALID_VALUE before anything is sent', async () => {
    const { root, counter } = await connectOn(db, driver, schemaOf(driver))
    counter.reset()
    await expect(root.fork().load('arr', 5)).rejects.toMatchObject({ code: 'INVALID_VALUE' })
    await expect(root.fork().load('arr', ['x'])).rejects.toMatchObject({ code: 'INVALID_VALUE' })
    expect(counter.read().roundTrips).toBe(0)
  })

  test('a composite key holding a text[] (elements with commas and quotes), loaded alone and many in one tick', async () => {
    const { root, counter } = await connectOn(db, driver, schemaOf(driver))
    expect((await root.fork().load('tagged', { tenant: 1, tags: ['a,b', 'c"d'] }))['v']).toBe('quoted')
    const em = root.fork()
    counter.reset()
    const rows = await Promise.all([
      em.load('tagged', { tenant: 1, tags: ['a,b', 'c"d'] }),
      em.load('tagged', { tenant: 1, tags: ['x'] }),
      em.load('tagged', { tenant: 2, tags: ['x'] }),
      em.load('tagged', { tenant: 2, tags: ['a,b', 'c"d'] }).catch((e: unknown) => e),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(rows.slice(0, 3).map((r) => (r as Record<string, unknown>)['v'])).toEqual(['quoted', 'x', 'x2'])
    expect(rows[3]).toMatchObject({ code: 'NOT_FOUND' })
  })
})
