import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, expect, test } from 'vitest'
import { fetchIdsSql } from '../../src/ids/id-allocator.ts'

// The id fetch's text against a real server: one row per sequence, each with the ids nextval drew,
// in the order drawn, for any sequence name; the prefetch form leaves out sequences the role may not use.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create schema "Odd ""Schema""";
    create table "Odd ""Schema""".plain (id bigserial primary key);
    create table idf_identity (id int generated always as identity (start with 100) primary key);
    create sequence idf_down increment by -1 start with -1 maxvalue -1;
    create sequence idf_locked;
    create role idf_reader;
    grant usage on schema "Odd ""Schema""" to idf_reader;
    grant usage on sequence idf_down, "Odd ""Schema""".plain_id_seq to idf_reader;
  `)
})

const SEQUENCES = ['"Odd ""Schema""".plain_id_seq', 'public.idf_identity_id_seq', 'idf_down', 'idf_locked']

test('one row per sequence with the ids drawn, in the order drawn, whatever the name', async () => {
  const rows = await db.sql.unsafe<{ seq: string; ids: string }[]>(fetchIdsSql(SEQUENCES, [3, 100_000, 4, 1]))
  const bySeq = new Map(rows.map((r) => [r.seq, r.ids.split(',').map(Number)]))
  expect([...bySeq.keys()].sort()).toEqual([...SEQUENCES].sort())
  expect(bySeq.get(SEQUENCES[0]!)).toEqual([1, 2, 3])
  const identity = bySeq.get(SEQUENCES[1]!)!
  expect(identity).toHaveLength(100_000)
  expect(identity.every((id, i) => id === 100 + i)).toBe(true)
  expect(bySeq.get('idf_down')).toEqual([-1, -2, -3, -4])
  expect(bySeq.get('idf_locked')).toEqual([1])
  // The next fetch continues where this one stopped.
  const [again] = await db.sql.unsafe<{ ids: string }[]>(fetchIdsSql([SEQUENCES[0]!], [2]))
  expect(again?.ids).toBe('4,5')
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
