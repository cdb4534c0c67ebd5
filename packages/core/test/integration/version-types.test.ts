import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// An entity's version holds what a read of its row gives, in the same type, after a create and after
// an update: an int8 version is its text (an int8 is read as text, exact), an int4 version a number.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table big_versioned (id int primary key, v text not null, version int8 not null default 1);
    create table small_versioned (id int primary key, v text not null, version int4 not null default 1);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(['big_versioned', 'small_versioned'])(
    '%s: the version after a create and an update is the one a read gives',
    async (table) => {
      const { client, end } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { versionColumn: 'version' })
      const id = TEST_DRIVERS.indexOf(driver) + 1
      const read = async () => (await root.fork().find(table, { id }))[0]!['version']
      try {
        const em = root.fork()
        const row = em.create(table, { id, v: 'a' })
        await em.flush()
        const created = await read()
        expect(created).toBe(table === 'big_versioned' ? '1' : 1)
        expect(row['version']).toBe(created)
        row['v'] = 'b'
        await em.flush()
        expect(row['version']).toBe(await read())
        const loaded = await root.fork().load(table, id)
        expect(loaded!['version']).toBe(table === 'big_versioned' ? '2' : 2)
      } finally {
        await end()
      }
    },
  )
})
