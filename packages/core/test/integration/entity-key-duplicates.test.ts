import { isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { connectOn, schemaOf } from './fixtures/schema-client.ts'

// A new row whose key holds an entity (a region keyed by its country) is checked against the rows the
// unit of work manages, as one keyed by plain values is: the entity stands for its own key. Unchecked,
// a region a cascade had removed (still managed, as loaded) and a new one under the same key were two
// entities of one row, and a change to the stale one overwrote the new row.
const db = useTestDatabase()

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf('entity_keys', driver)
    await db.sql.unsafe(`
      create schema "${s}";
      create table "${s}".country (code text primary key, name text not null);
      create table "${s}".region (
        country_code text not null references "${s}".country on delete cascade,
        code text not null, name text not null, primary key (country_code, code));
      create table "${s}".city (id bigserial primary key, name text not null);
      create table "${s}".district (
        city_id bigint not null references "${s}".city, code text not null, primary key (city_id, code));
      insert into "${s}".country values ('FR', 'France'), ('BE', 'Belgium');
      insert into "${s}".region values ('FR', 'IDF', 'Ile-de-France');
    `)
  }
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  const connect = () => connectOn(db, driver, schemaOf('entity_keys', driver))

  test('a new row keyed by an entity is DUPLICATE_KEY when the unit manages that key, as with the plain value', async () => {
    const { root, end } = await connect()
    try {
      const em = root.fork()
      const fr = await em.load('country', 'FR')
      const [idf] = await em.find('region', { country_code: 'FR' })
      for (const country of [fr, 'FR']) {
        const error = (() => {
          try {
            em.create('region', { country_code: country, code: 'IDF', name: 'again' })
          } catch (e) {
            return e
          }
          return undefined
        })()
        expect(isPipeflushError(error, 'DUPLICATE_KEY')).toBe(true)
        expect((error as PipeflushError).message).toContain('already managed')
      }
      // Another key of the same country is a new row.
      em.create('region', { country_code: fr, code: 'NAQ', name: 'Nouvelle-Aquitaine' })
      expect(em.pending.inserts).toBe(1)
      expect(idf!['name']).toBe('Ile-de-France')
    } finally {
      await end()
    }
  })

  test('after a cascade removed a loaded row, its key re-created through an entity is refused, not a second entity of one row', async () => {
    const { root, end } = await connect()
    try {
      const seed = root.fork()
      seed.create('country', { code: 'DE', name: 'Germany' })
      seed.create('region', { country_code: 'DE', code: 'BY', name: 'Bavaria' })
      await seed.flush()
      const em = root.fork()
      const de = await em.load('country', 'DE')
      const [by] = await em.find('region', { country_code: 'DE' })
      em.remove(de!)
      await em.flush() // the cascade removes the region; its entity stays as loaded
      const de2 = em.create('country', { code: 'DE', name: 'Germany again' })
      expect(() => em.create('region', { country_code: de2, code: 'BY', name: 'again' })).toThrow(
        /already managed/,
      )
      em.clear()
      const fresh = root.fork()
      const de3 = fresh.create('country', { code: 'DE', name: 'Germany again' })
      fresh.create('region', { country_code: de3, code: 'BY', name: 'again' })
      await fresh.flush()
      expect(by!['name']).toBe('Bavaria')
      const rows = await db.sql.unsafe(
        `select name from "${schemaOf('entity_keys', driver)}".region where country_code = 'DE'`,
      )
      expect(rows.map((r) => r['name'])).toEqual(['again'])
    } finally {
      await end()
    }
  })

  test('a key part that is a new entity whose id is not assigned yet is no known key: the row is created', async () => {
    const { root, end } = await connect()
    try {
      const em = root.fork()
      const city = em.create('city', { name: 'Lyon' })
      em.create('district', { city_id: city, code: 'A' })
      em.create('district', { city_id: city, code: 'B' })
      await em.flush()
      expect(em.pending.inserts).toBe(0)
    } finally {
      await end()
    }
  })
})
