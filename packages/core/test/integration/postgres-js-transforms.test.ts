import { EntityManager, flushLogDdl, isPipeflushError } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'

// A postgres.js client made with `transform` renames the columns of every answer, pipeflush's own
// included: with `postgres.pascal` connect read an empty schema (its names not found) and a read by
// key was NOT_FOUND for a row that exists (found by an outside probe). A transform that renames them
// is refused at connect now; one that keeps them works as before.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(
    `create table tr_author (id serial primary key, full_name text not null); create table tr_book (id serial primary key, author_id int not null references tr_author, title text not null); ${flushLogDdl('tr_flush_log')}`,
  )
})

describe('postgres.js transform', () => {
  test.each([
    ['postgres.pascal', postgres.pascal, 'transform.column makes the column c0 C0'],
    ['a column prefix', { column: { from: (name: string) => `x_${name}` } }, 'makes the column c0 x_c0'],
    [
      'a row transform dropping names',
      { row: { from: () => ({}) } },
      'transform.row does not keep the column c0',
    ],
  ] as const)('%s: refused at connect, INVALID_CONFIG naming what it renames', async (_, transform, said) => {
    const { sql } = db.connect({ max: 1, proxied: false, transform })
    try {
      const refused = await EntityManager.connect(sql).catch((e: unknown) => e)
      expect(isPipeflushError(refused, 'INVALID_CONFIG'), String(refused)).toBe(true)
      expect((refused as Error).message).toContain(said)
      expect((refused as Error).message).toContain('a client made without that transform')
    } finally {
      await sql.end()
    }
  })

  test.each([
    ['postgres.camel', postgres.camel],
    ['postgres.kebab', postgres.kebab],
    ['a row transform keeping names', { row: { from: (row: Record<string, unknown>) => ({ ...row }) } }],
  ] as const)(
    '%s: keeps the names pipeflush reads; writes, reads and relations as without',
    async (_, transform) => {
      const { sql } = db.connect({ max: 1, proxied: false, transform })
      try {
        // The flush log's check at connect, and its wasCommitted, read their own names too.
        const root = await EntityManager.connect(sql, { flushLog: 'tr_flush_log' })
        const em = root.fork()
        const author = em.create('tr_author', { full_name: 'Ann' })
        em.create('tr_book', { author_id: author, title: 'One' })
        const report = await em.flush()
        expect(await em.wasCommitted(report.flushId)).toBe(true)
        const reader = root.fork()
        const loaded = await reader.load('tr_author', author['id'], { with: { tr_books: true } })
        expect(loaded['full_name']).toBe('Ann')
        expect((loaded['tr_books'] as Record<string, unknown>[]).map((b) => b['title'])).toEqual(['One'])
      } finally {
        await sql.end()
      }
    },
  )
})
