import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A unique constraint NULLS NOT DISTINCT (PostgreSQL 15) holds a NULL equal to a NULL: a tuple with a
// NULL freed by one statement and taken by another is handed off in that order, as any other value.
// (A folder's name is unique among its siblings, the root folders' parent being NULL.)

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
let supported = false

beforeAll(async () => {
  const [row] = await db.sql<{ n: string }[]>`select current_setting('server_version_num') as n`
  supported = Number(row!.n) >= 150000
  if (supported)
    await db.sql.unsafe(`create table folder (id int primary key, parent_id int references folder,
      name text not null, unique nulls not distinct (parent_id, name))`)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each(modes)('%s', (mode) => {
    const base = (TEST_DRIVERS.indexOf(driver) * 3 + modes.indexOf(mode)) * 10 + 1

    async function unit() {
      const { client } = db.client(driver, { max: 2 })
      return (await EntityManager.connect(client, { pipeline: mode })).fork()
    }

    test('a root folder removed and a new one given its name; two root folders renamed in a chain', async (ctx) => {
      if (!supported) ctx.skip('NULLS NOT DISTINCT needs PostgreSQL 15')
      const [a, b, c] = [`a${base}`, `b${base}`, `c${base}`]
      await db.sql.unsafe(`insert into folder values (${base}, null, '${a}'), (${base + 1}, null, '${b}')`)
      const em = await unit()
      const [first, second] = await Promise.all([em.load('folder', base), em.load('folder', base + 1)])
      em.remove(first)
      em.create('folder', { id: base + 2, name: a }) // parent_id left out: NULL, as the removed row's
      second['name'] = c
      await em.flush()
      const again = await unit()
      const [renamed, fresh] = await Promise.all([
        again.load('folder', base + 1),
        again.load('folder', base + 2),
      ])
      fresh['name'] = c // takes the name the other root folder gives up in the same flush
      renamed['name'] = `${b}x`
      await again.flush()
      const names =
        await db.sql`select id, name from folder where id between ${base} and ${base + 2} order by id`
      expect(names).toEqual([
        { id: base + 1, name: `${b}x` },
        { id: base + 2, name: c },
      ])
    })
  })
})
