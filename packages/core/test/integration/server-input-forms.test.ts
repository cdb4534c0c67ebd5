import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Values PostgreSQL stores in a form other than the one given: spaces past varchar(n)/char(n)
// dropped by the assignment, uuids in braces, without hyphens or hyphenated every four digits. They
// are stored, and compared and keyed as the column reads them: no false change, no OPTIMISTIC_LOCK,
// one entity for the row however its key was spelled.
const db = useTestDatabase()
const CANONICAL = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
const UUID_FORMS = [
  '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
  'a0eebc999c0b4ef8bb6d6bb9bd380a11',
  'A0EE-BC99-9C0B-4EF8-BB6D-6BB9-BD38-0A11',
]

beforeAll(async () => {
  await db.sql.unsafe(`
    create table forms (id serial primary key, vc varchar(3), ch char(2), u uuid, n int);
    create table vkey (code varchar(3) primary key, n int);
    create table ukey (id uuid primary key, n int);
    create table uref (id serial primary key, ukey_id uuid references ukey, n int);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('stored as the raw driver stores them; flushed again, nothing is written; changed, no OPTIMISTIC_LOCK', async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const rows = [{ vc: 'abc  ' }, { ch: 'ab ' }, ...UUID_FORMS.map((u) => ({ u }))]
    for (const values of rows) {
      const em = root.fork()
      const entity = em.create('forms', { ...values, n: 0 })
      await em.flush()
      const [stored] = await db.sql.unsafe(
        `select vc::text, ch::text, u::text from forms where id = ${Number(entity['id'])}`,
      )
      const [col, given] = Object.entries(values)[0]!
      const want = col === 'u' ? CANONICAL : given.trimEnd()
      expect(stored![col], JSON.stringify(values)).toBe(want)
      expect((await em.flush()).statements, 'nothing changed').toBe(0)
      entity['n'] = 1
      await em.flush()
      entity[col] = given // assigned again as given: the same value
      expect((await em.flush()).statements).toBe(0)

      // Read back (the stored form), the given form assigned is no change.
      const other = root.fork()
      const read = await other.load('forms', entity['id'] as number)
      expect(read[col]).toBe(want)
      read[col] = given
      expect((await other.flush()).statements).toBe(0)
      read['n'] = 2
      await other.flush()
      // Found by the form given.
      expect(await root.fork().find('forms', { [col]: given, id: entity['id'] })).toHaveLength(1)
    }
  })

  test('a key given in another form than stored: one entity, found, loaded, referenced, updated and removed', async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const code = `${driver.slice(0, 2)}x` // one row per driver
    const id = `${driver === 'pg' ? 'c' : 'd'}0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11`
    const em = root.fork()
    const v = em.create('vkey', { code: `${code}  `, n: 0 })
    const u = em.create('ukey', { id: `{${id.replaceAll('-', '').toUpperCase()}}`, n: 0 })
    await em.flush()
    expect(await em.load('vkey', code)).toBe(v)
    expect(await em.load('ukey', id)).toBe(u)
    expect(await em.find('vkey', { code })).toEqual([v])
    expect(await em.find('ukey', { id: id.replaceAll('-', '') })).toEqual([u])
    const ref = em.create('uref', { ukey_id: id.toUpperCase(), n: 0 })
    v['n'] = 1
    u['n'] = 1
    await em.flush()
    const [child] = await root.fork().find('uref', { id: ref['id'] }, { with: { ukey: true } })
    expect((child!['ukey'] as { n: number }).n).toBe(1)

    const again = root.fork()
    const loaded = await again.load('vkey', `${code} `)
    const loadedU = await again.load('ukey', `{${id}}`)
    expect(loadedU['id']).toBe(id)
    loaded['n'] = 2
    loadedU['n'] = 2
    await again.flush()
    again.remove(loaded)
    await again.flush()
    const gone = await root
      .fork()
      .load('vkey', code)
      .catch((e: unknown) => e)
    expect(isPipeflushError(gone, 'NOT_FOUND')).toBe(true)
  })

  test('what the server refuses is still INVALID_VALUE before anything is sent', async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    for (const values of [{ vc: 'abcd ' }, { ch: 'ab\t' }, { u: `${CANONICAL}-` }, { u: `{${CANONICAL}` }]) {
      const em = root.fork()
      em.create('forms', values)
      const e = await em.flush().catch((x: unknown) => x)
      expect(isPipeflushError(e, 'INVALID_VALUE'), JSON.stringify(values)).toBe(true)
    }
  })
})
