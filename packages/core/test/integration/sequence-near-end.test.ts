import { EntityManager, isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { fetchIdsSql } from '../../src/ids/id-allocator.ts'

// A key sequence with fewer values left than an id block (a smallserial, a serial near 2^31, a
// MAXVALUE; a MINVALUE counting down): no id fetch calls nextval past its end, which would fail and
// lose the values drawn before the failure to every client. `connect` takes none of its values, a
// flush only those it needs, and a flush that needs more than are left is SEQUENCE_EXHAUSTED before
// sending anything, the values left to whoever fits in them.
const db = useTestDatabase()

/** The sequence's last value and whether it was given, as another client reads them. */
async function sequenceState(name: string): Promise<{ last_value: string; is_called: boolean }> {
  const [row] = await db.sql.unsafe<{ last_value: string; is_called: boolean }[]>(
    `select last_value::text, is_called from ${name}`,
  )
  return row!
}

/** The next value of the sequence, drawn by another client (a plain INSERT's DEFAULT would do the same). */
async function nextval(name: string): Promise<string> {
  const [row] = await db.sql.unsafe<{ v: string }[]>(`select nextval('${name}')::text as v`)
  return row!.v
}

/** The ids stored in `table`, as texts, in order. */
async function storedIds(table: string): Promise<string[]> {
  const rows = await db.sql.unsafe<{ v: string }[]>(`select id::text as v from ${table} order by id`)
  return rows.map((r) => r.v)
}

/** `from` to `to` included, counting up or down, as texts. */
function idRange(from: number, to: number): string[] {
  const step = from <= to ? 1 : -1
  return Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => String(from + i * step))
}

test('the id fetch draws a block only from a sequence with that many left, else what is needed, else nothing', async () => {
  await db.sql.unsafe(`
    create sequence sne_fetch as smallint;
    select setval('sne_fetch', 32740);
  `)
  type Row = {
    seq: string
    rest: string | null
    first: string | null
    count: string | null
    ids: string | null
  }
  const fetch = async (n: number, needed: number) =>
    (await db.sql.unsafe<Row[]>(fetchIdsSql(['sne_fetch'], [n], { needed: [needed] })))[0]!
  // 27 left: a block of 50 that needs none (a prefetch, a top-up) takes none.
  expect(await fetch(50, 0)).toMatchObject({ rest: '27', count: null, ids: null })
  // Needing 30 of them: none either.
  expect(await fetch(50, 30)).toMatchObject({ rest: '27', count: null, ids: null })
  // Needing 5: those 5.
  expect(await fetch(50, 5)).toMatchObject({ rest: '22', first: '32741', count: '5' })
  // A block that fits is drawn whole, to the last value.
  expect(await fetch(22, 0)).toMatchObject({ rest: '0', first: '32746', count: '22' })
  expect(await fetch(1, 1)).toMatchObject({ rest: '0', count: null, ids: null })
  expect(await sequenceState('sne_fetch')).toEqual({ last_value: '32767', is_called: true })
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a smallserial with 27 values left: connect takes none, a flush only what it needs', async () => {
    const table = `sne_color_${driver.replace(/\W/g, '_')}`
    const seq = `${table}_id_seq`
    await db.sql.unsafe(`
      create table ${table} (id smallserial primary key, name text not null);
      select setval('${seq}', 32740);
    `)
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    expect(await sequenceState(seq), 'connect drew nothing').toEqual({ last_value: '32740', is_called: true })
    expect(await nextval(seq), 'another client still draws').toBe('32741')
    const em = root.fork()
    const color = em.create(table, { name: 'teal' })
    const report = await em.flush()
    expect(report).toMatchObject({ inserted: 1, idFetch: true })
    expect(color['id']).toBe(32742)
    expect(await nextval(seq), 'the flush took only the id it needed').toBe('32743')
    expect(await storedIds(table)).toEqual(['32742'])
  })

  test('a serial near 2^31: the flush of its last values succeeds, one more is SEQUENCE_EXHAUSTED', async () => {
    const table = `sne_serial_${driver.replace(/\W/g, '_')}`
    const seq = `${table}_id_seq`
    await db.sql.unsafe(`
      create table ${table} (id serial primary key, name text not null);
      select setval('${seq}', 2147483647 - 3);
    `)
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    for (let i = 0; i < 3; i++) em.create(table, { name: `n${i}` })
    expect((await em.flush()).inserted).toBe(3)
    expect(await storedIds(table)).toEqual(['2147483645', '2147483646', '2147483647'])
    em.create(table, { name: 'one more' })
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'SEQUENCE_EXHAUSTED')).toBe(true)
    expect(await storedIds(table)).toHaveLength(3)
  })

  test('a fresh sequence with a MAXVALUE: exactly as many rows as it has values fit, then SEQUENCE_EXHAUSTED', async () => {
    const table = `sne_max_${driver.replace(/\W/g, '_')}`
    const seq = `${table}_seq`
    // Never drawn from: its next value is its start, which no catalog view shows.
    await db.sql.unsafe(`
      create sequence ${seq} start with 1001 maxvalue 1010;
      create table ${table} (id bigint primary key default nextval('${seq}'), name text not null);
    `)
    const { client, counter } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    const rows = Array.from({ length: 10 }, (_, i) => em.create(table, { name: `r${i}` }))
    expect((await em.flush()).inserted).toBe(10)
    expect(rows.map((r) => r['id'])).toEqual(idRange(1001, 1010))
    expect(await storedIds(table)).toEqual(idRange(1001, 1010))
    // One more: refused before its insert is sent, naming the sequence and the table.
    const extra = em.create(table, { name: 'extra' })
    counter.reset()
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'SEQUENCE_EXHAUSTED')).toBe(true)
    const pe = error as PipeflushError
    expect(pe.message).toContain(seq)
    expect(pe.message).toContain(table)
    expect(pe.message).not.toContain('(a value)')
    expect(pe.table).toBe(table)
    expect(counter.read().roundTrips, 'the id fetch, no insert').toBe(1)
    expect(em.pending).toEqual({ inserts: 1, updates: 0, deletes: 0, upserts: 0 })
    expect(em.stateOf(extra)).toBe('new')
    expect(await storedIds(table)).toHaveLength(10)
  })

  test('one row more than the sequence has left: SEQUENCE_EXHAUSTED, nothing drawn or written, the rows fit once one goes', async () => {
    const table = `sne_over_${driver.replace(/\W/g, '_')}`
    const seq = `${table}_id_seq`
    await db.sql.unsafe(`
      create table ${table} (id smallserial primary key, name text not null);
      select setval('${seq}', 32760);
    `)
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    const rows = Array.from({ length: 8 }, (_, i) => em.create(table, { name: `r${i}` }))
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'SEQUENCE_EXHAUSTED')).toBe(true)
    expect((error as PipeflushError).message).toMatch(/has 7 values left.*needs 8 new ids/)
    expect(await storedIds(table)).toEqual([])
    expect(await sequenceState(seq), 'no value drawn').toEqual({ last_value: '32760', is_called: true })
    expect(em.pending).toEqual({ inserts: 8, updates: 0, deletes: 0, upserts: 0 })
    expect(rows.every((r) => em.stateOf(r) === 'new' && r['id'] === undefined)).toBe(true)
    em.remove(rows[7]!)
    expect((await em.flush()).inserted).toBe(7)
    expect(await storedIds(table)).toEqual(idRange(32761, 32767))
  })

  test('a descending sequence near its MINVALUE: connect takes none, its last values fit, then SEQUENCE_EXHAUSTED', async () => {
    const table = `sne_down_${driver.replace(/\W/g, '_')}`
    const seq = `${table}_seq`
    await db.sql.unsafe(`
      create sequence ${seq} increment by -1 minvalue -1005 maxvalue -1 start with -1;
      select setval('${seq}', -1000);
      create table ${table} (id int primary key default nextval('${seq}'), name text not null);
    `)
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    expect(await sequenceState(seq), 'connect drew nothing').toEqual({ last_value: '-1000', is_called: true })
    expect(await nextval(seq), 'another client still draws').toBe('-1001')
    const em = root.fork()
    const rows = Array.from({ length: 4 }, (_, i) => em.create(table, { name: `r${i}` }))
    expect((await em.flush()).inserted).toBe(4)
    expect(rows.map((r) => r['id'])).toEqual([-1002, -1003, -1004, -1005])
    em.create(table, { name: 'one more' })
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'SEQUENCE_EXHAUSTED')).toBe(true)
    expect((error as PipeflushError).message).toContain(seq)
    expect(await storedIds(table)).toEqual(['-1005', '-1004', '-1003', '-1002'])
  })

  test('a sequence near its end beside others: connect and flushes of the other tables keep working', async () => {
    const suffix = driver.replace(/\W/g, '_')
    await db.sql.unsafe(`
      create table sne_full_${suffix} (id smallserial primary key, name text not null);
      select setval('sne_full_${suffix}_id_seq', 32767);
      create table sne_author_${suffix} (id serial primary key, name text not null);
    `)
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    for (let i = 0; i < 3; i++) {
      const em = root.fork()
      for (let k = 0; k < 40; k++) em.create(`sne_author_${suffix}`, { name: 'a' })
      expect((await em.flush()).inserted).toBe(40)
    }
    const em = root.fork()
    em.create(`sne_full_${suffix}`, { name: 'none left' })
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'SEQUENCE_EXHAUSTED')).toBe(true)
    expect(await storedIds(`sne_author_${suffix}`)).toHaveLength(120)
  })
})
