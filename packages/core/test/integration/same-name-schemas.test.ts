import { EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Two tables of one name in two schemas (`public.artist_alias`, keyed `artist_alias`, and
// `music.artist_alias`): a duplicate in one of them is named by that one's key. The server names
// the table unqualified; its schema was not read, and the first statement on either was taken.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create schema music;
    create table artist_alias (alias text primary key);
    create table music.artist_alias (alias text primary key);
    insert into music.artist_alias values ('acdc');
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(['burst', 'waves', 'off'] as PipelineMode[])(
    '%s: the duplicate in music.artist_alias is named so, not artist_alias; nothing committed',
    async (mode) => {
      const { client } = db.client(driver, { max: 2 })
      const em = await EntityManager.connect(client, { pipeline: mode, schemas: ['public', 'music'] })
      em.create('artist_alias', { alias: 'acdc' })
      em.create('music.artist_alias', { alias: 'acdc' })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      expect(error).toMatchObject({ table: 'music.artist_alias', keys: ['acdc'] })
      expect((error as Error).message).toMatch(/^insert on music\.artist_alias violated/)
      const [row] = await db.sql`select count(*)::int as n from artist_alias`
      expect(row?.['n']).toBe(0)
    },
  )

  // `schemas` read as a search path (found by an outside probe): with ['music', 'public'] the bare
  // name was still public's table (the session's current schema), and a create meant for music's
  // wrote public's, silently.
  test("schemas listing another schema before the session's current one, both with a table of one name: INVALID_CONFIG at connect", async () => {
    const { client } = db.client(driver, { max: 1 })
    const error = await EntityManager.connect(client, { schemas: ['music', 'public'] }).catch(
      (e: unknown) => e,
    )
    expect(isPipeflushError(error, 'INVALID_CONFIG')).toBe(true)
    expect((error as Error).message).toMatch(
      /schemas lists "music" before "public", the session's current schema .* both have "artist_alias"/,
    )
    // The current schema first, or the other alone (every key then qualified): as before.
    const first = await EntityManager.connect(client, { schemas: ['public', 'music'] })
    expect(first.schema.tables.get('artist_alias')?.schema).toBe('public')
    const alone = await EntityManager.connect(client, { schemas: ['music'] })
    expect([...alone.schema.tables.keys()]).toEqual(['music.artist_alias'])
  })
})
