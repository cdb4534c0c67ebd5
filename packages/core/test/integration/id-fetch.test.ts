import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, expect, test } from 'vitest'
import { fetchIdsSql } from '../../src/ids/id-allocator.ts'

// The id fetch's text against a real server: one row per sequence, each with the ids nextval drew,
// in the order drawn (as their first and count when consecutive), for any sequence name; the
// prefetch form leaves out sequences the role may not use.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create schema "Odd ""Schema""";
    create table "Odd ""Schema""".plain (id bigserial primary key);
    create table idf_identity (id int generated always as identity (start with 100) primary key);
    create sequence idf_down increment by -1 start with -1 maxvalue -1;
    create sequence idf_locked;
    create sequence idf_cached cache 5;
    create sequence idf_step increment by 2;
    create sequence idf_cycle maxvalue 3 cycle;
    create role idf_reader;
    grant usage on schema "Odd ""Schema""" to idf_reader;
    grant usage on sequence idf_down, "Odd ""Schema""".plain_id_seq to idf_reader;
  `)
})

const SEQUENCES = ['"Odd ""Schema""".plain_id_seq', 'public.idf_identity_id_seq', 'idf_down', 'idf_locked']

/** A row of the answer, as the allocator reads it. */
interface Fetched {
  seq: string
  first: string | null
  count: number | null
  ids: string | null
}

/** The ids of a row (the first and count when consecutive, else the list), and which form came. */
function drawn(row: Fetched): { ids: number[]; form: 'range' | 'list' } {
  if (row.count !== null) {
    expect(row.ids).toBeNull()
    return { ids: Array.from({ length: row.count }, (_, i) => Number(row.first) + i), form: 'range' }
  }
  return { ids: (row.ids ?? '').split(',').map(Number), form: 'list' }
}

test('one row per sequence with the ids drawn, in the order drawn, whatever the name', async () => {
  const rows = await db.sql.unsafe<Fetched[]>(fetchIdsSql(SEQUENCES, [3, 100_000, 4, 1]))
  const forms = new Map(rows.map((r) => [r.seq, drawn(r).form]))
  expect(forms).toEqual(
    new Map([
      [SEQUENCES[0], 'range'],
      [SEQUENCES[1], 'range'],
      ['idf_down', 'list'], // counts down
      ['idf_locked', 'range'],
    ]),
  )
  const bySeq = new Map(rows.map((r) => [r.seq, drawn(r).ids]))
  expect([...bySeq.keys()].sort()).toEqual([...SEQUENCES].sort())
  expect(bySeq.get(SEQUENCES[0]!)).toEqual([1, 2, 3])
  const identity = bySeq.get(SEQUENCES[1]!)!
  expect(identity).toHaveLength(100_000)
  expect(identity.every((id, i) => id === 100 + i)).toBe(true)
  expect(bySeq.get('idf_down')).toEqual([-1, -2, -3, -4])
  expect(bySeq.get('idf_locked')).toEqual([1])
  // The next fetch continues where this one stopped.
  const [again] = await db.sql.unsafe<Fetched[]>(fetchIdsSql([SEQUENCES[0]!], [2]))
  expect(drawn(again!)).toEqual({ ids: [4, 5], form: 'range' })
})

test('ids that are not consecutive come as the list drawn: another session drew between, a step, a cycle', async () => {
  // Sessions cache 5 values each: the second session's block falls inside the first one's fetch.
  const [a, b] = [await db.sql.reserve(), await db.sql.reserve()]
  try {
    await a.unsafe(`select nextval('idf_cached')`) // a holds 1..5
    await b.unsafe(`select nextval('idf_cached')`) // b holds 6..10
    const [cached] = await a.unsafe<Fetched[]>(fetchIdsSql(['idf_cached'], [8]))
    expect(drawn(cached!)).toEqual({ ids: [2, 3, 4, 5, 11, 12, 13, 14], form: 'list' })
  } finally {
    a.release()
    b.release()
  }
  const [step] = await db.sql.unsafe<Fetched[]>(fetchIdsSql(['idf_step'], [3]))
  expect(drawn(step!)).toEqual({ ids: [1, 3, 5], form: 'list' })
  // A cycling sequence that wraps within the fetch.
  const [cycle] = await db.sql.unsafe<Fetched[]>(fetchIdsSql(['idf_cycle'], [4]))
  expect(drawn(cycle!)).toEqual({ ids: [1, 2, 3, 1], form: 'list' })
})

test('the prefetch form leaves out a sequence the role may not use; the flush form fails there', async () => {
  const session = await db.sql.reserve()
  try {
    await session.unsafe('set role idf_reader')
    const rows = await session.unsafe<{ seq: string }[]>(
      fetchIdsSql(SEQUENCES, [1, 1, 1, 1], { usableOnly: true }),
    )
    expect(rows.map((r) => r.seq).sort()).toEqual([SEQUENCES[0], 'idf_down'])
    const denied = await session.unsafe(fetchIdsSql(['idf_locked'], [1])).catch((e: unknown) => e)
    expect(denied).toMatchObject({ code: '42501' })
  } finally {
    await session.unsafe('reset role')
    session.release()
  }
})
