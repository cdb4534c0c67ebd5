import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, beforeEach, describe, expect, test } from 'vitest'

// An inet given with a single host's netmask ('10.0.0.1/32') is stored, and printed, as the address
// ('10.0.0.1'); found by an outside probe:
// - an upsert on it committed, but its entity was left detached without its id (the row returned was
//   not matched to it): the application could not reach the row it wrote;
// - a load by a key so written was NOT_FOUND, though the server returned the row.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table itf_device (id serial primary key, addr inet unique not null, label text);
    create table itf_host (addr inet primary key, label text);
  `)
})

beforeEach(async () => {
  await db.sql.unsafe(
    `truncate itf_device, itf_host; insert into itf_host values ('10.0.0.9', 'nine'), ('::1', 'local');`,
  )
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([
    ['10.0.0.1/32', '10.0.0.1'],
    ['::2/128', '::2'],
  ])(
    'an upsert on an inet given as %s: inserted, then updated, its entity managed with its id both times',
    async (given, stored) => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client)
      const ids: unknown[] = []
      for (const round of [1, 2]) {
        const em = root.fork()
        const device = em.upsert(
          'itf_device',
          { addr: given, label: `round ${round}` },
          { conflict: ['addr'] },
        )
        expect((await em.flush()).upserted).toBe(1)
        expect(em.stateOf(device)).toBe('managed')
        expect(device['addr']).toBe(stored)
        ids.push(device['id'])
        device['label'] = 'changed'
        await em.flush()
      }
      expect(ids[0]).toEqual(expect.any(Number))
      expect(ids[1]).toBe(ids[0])
      expect(await db.sql.unsafe('select id, addr::text, label from itf_device')).toEqual([
        { id: ids[0], addr: given, label: 'changed' },
      ])
    },
  )

  test('a load by an inet key given with its netmask finds the row; the entity is the one a find gives', async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    const [nine, local] = await Promise.all([
      em.load('itf_host', '10.0.0.9/32'),
      em.load('itf_host', '::1/128'),
    ])
    expect([nine['label'], local['label']]).toEqual(['nine', 'local'])
    expect(await em.find('itf_host', {})).toEqual(expect.arrayContaining([nine, local]))
    expect((await em.find('itf_host', {})).every((h) => h === nine || h === local)).toBe(true)
    nine['label'] = 'NINE'
    await em.flush()
    expect((await root.fork().load('itf_host', '10.0.0.9'))['label']).toBe('NINE')
  })
})
