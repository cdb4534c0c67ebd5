import type { EntityManager, EntityManagerOptions } from '@pipeflush/core'
import type { ScriptedFault } from '@pipeflush/testkit'
import { describe, expect, test } from 'vitest'
import { inParallel } from './flush-case.ts'
import { byRoundTrip, extended } from './message-labels.ts'
import { ROWS, type ScriptedDriver, scripted } from './scripted-client.ts'
import { failOnStrayErrors } from './stray-errors.ts'

// A tick's reads in one message (`read/read-batch.ts`), on a scripted PostgreSQL peer: no server.
failOnStrayErrors()

/** Each driver, and how a batch's selects travel on it. */
const SETUPS: readonly {
  driver: ScriptedDriver
  options: EntityManagerOptions
  pipelined: boolean
  what: string
}[] = [
  { driver: 'postgres.js', options: {}, pipelined: false, what: 'one simple-protocol message' },
  { driver: 'pg', options: {}, pipelined: true, what: 'named selects pipelined (no pooler found)' },
  {
    driver: 'pg',
    options: { prepare: true },
    pipelined: true,
    what: 'named selects pipelined (prepare: true)',
  },
  {
    driver: 'pg',
    options: { prepare: false },
    pipelined: false,
    what: 'one simple-protocol message (prepare: false)',
  },
  { driver: 'pg-simple', options: {}, pipelined: false, what: 'one simple-protocol message (no pipeline)' },
]

/** Three reads started in one tick: authors named Bo, authors named `second`, books titled x. */
function threeReads(em: EntityManager, second = 'Cy') {
  return Promise.allSettled([
    em.find('author', { name: 'Bo' }),
    em.find('author', { name: second }),
    em.find('book', { title: 'x' }),
  ])
}

/** The messages of a batch of `selects` in one round trip, as `setup` sends it. */
function batch(setup: (typeof SETUPS)[number], selects: readonly string[], parsed: boolean): string[] {
  return setup.pipelined ? selects.flatMap((s) => extended(s, parsed)) : [`Q ${selects.join('; ')}`]
}

describe.each(SETUPS)('$driver: $what', (setup) => {
  test('the reads of a tick go in one message, one round trip; each gets its rows', async () => {
    const s = await scripted(setup.driver, setup.options)
    try {
      await s.warm()
      const em = s.root.fork()
      const [bo, cy, books] = await threeReads(em)
      expect(
        [bo, cy, books].map((r) =>
          r.status === 'fulfilled' ? r.value.map((e) => e['name'] ?? e['title']) : r.reason,
        ),
      ).toEqual([['Bo'], ['Cy'], []])
      const selects = ['select author', 'select author', 'select book']
      // The warm-up read parsed the select of books: a named statement is not parsed again.
      const parsed = [true, false, false]
      expect(byRoundTrip(s.server.log.messages)).toEqual([
        setup.pipelined ? selects.flatMap((l, i) => extended(l, parsed[i]!)) : batch(setup, selects, true),
      ])
      expect(s.counter.read().roundTrips).toBe(1)
      const names = s.server.log.messages.flatMap((m) => (m.message.type === 'Parse' ? [m.message.name] : []))
      for (const name of names) expect(name).toMatch(/^pf_/)
      // Loads by key of one tick are one select, and a load of an entity the unit of work holds sends nothing.
      s.server.log.reset()
      const [again, other] = await Promise.all([em.load('author', ROWS.bo.id), em.load('author', ROWS.cy.id)])
      expect([again, other]).toEqual([
        bo.status === 'fulfilled' && bo.value[0],
        cy.status === 'fulfilled' && cy.value[0],
      ])
      expect(s.server.log.messages).toEqual([])
    } finally {
      await s.close()
    }
  })

  test('a select the server refuses: each read is sent again on its own, and only that read fails', async () => {
    const s = await scripted(setup.driver, setup.options, [
      {
        match: (x) => x.text.includes("'Bad'") || x.params.includes('Bad'),
        answer: { error: { code: '42501', message: 'permission denied for table author' } },
      },
    ])
    try {
      await s.warm()
      const [bo, bad, books] = await threeReads(s.root.fork(), 'Bad')
      expect(bo).toMatchObject({ status: 'fulfilled', value: [{ name: 'Bo' }] })
      expect(bad).toMatchObject({
        status: 'rejected',
        reason: { code: 'STATEMENT_FAILED', sqlState: '42501' },
      })
      expect(books).toMatchObject({ status: 'fulfilled', value: [] })
      const selects = ['select author', 'select author', 'select book']
      const parsed = setup.pipelined ? [true, false, false] : [true, true, true]
      expect(byRoundTrip(s.server.log.messages)).toEqual([
        setup.pipelined ? selects.flatMap((l, i) => extended(l, parsed[i]!)) : batch(setup, selects, true),
        ...selects.map((l) => batch(setup, [l], false)),
      ])
      // One message of selects stops at the refused one; pipelined, each select has its own Sync.
      expect(s.server.log.executed.map((e) => e.result)).toEqual([
        ...(setup.pipelined ? ['SELECT 1', 'ERROR 42501', 'SELECT 0'] : ['SELECT 1', 'ERROR 42501']),
        ...['SELECT 1', 'ERROR 42501', 'SELECT 0'],
      ])
    } finally {
      await s.close()
    }
  })

  test('the connection closed or reset at each message of the batch, or a server that stops answering: every read fails (CONNECTION_LOST, QUERY_TIMEOUT), and the next read is answered', async () => {
    // The batch's messages, counted on a healthy connection.
    const clean = await scripted(setup.driver, setup.options)
    await clean.warm()
    await threeReads(clean.root.fork())
    const messages = clean.server.log.messages.length
    await clean.close()
    expect(messages).toBe(setup.pipelined ? 13 : 1)
    const faults: readonly { label: string; code: string; fault: ScriptedFault }[] = [
      ...Array.from({ length: messages }, (_, i): { label: string; code: string; fault: ScriptedFault }[] => [
        {
          label: `close at message ${i + 1}`,
          code: 'CONNECTION_LOST',
          fault: { at: { message: i + 1 }, action: 'close' },
        },
        {
          label: `reset at message ${i + 1}`,
          code: 'CONNECTION_LOST',
          fault: { at: { message: i + 1 }, action: 'reset' },
        },
      ]).flat(),
      {
        label: 'hang at the first message',
        code: 'QUERY_TIMEOUT',
        fault: { at: { message: 1 }, action: 'hang' },
      },
    ] as const
    const outcomes = await inParallel(
      faults.map((f) => ({
        label: f.label,
        run: async () => {
          const s = await scripted(setup.driver, { ...setup.options, flushTimeoutMs: 300 })
          try {
            await s.warm()
            s.server.arm({ connection: 1, ...f.fault })
            const results = await threeReads(s.root.fork())
            const next = await s.root.fork({ flushTimeoutMs: 5000 }).find('author', { name: 'Bo' })
            return [
              f.label,
              results.map((r) =>
                r.status === 'rejected' ? (r.reason as { code: string }).code : 'answered',
              ),
              next.map((e) => e['name']),
            ]
          } finally {
            await s.close()
          }
        },
      })),
    )
    expect(outcomes).toEqual(faults.map((f) => [f.label, [f.code, f.code, f.code], ['Bo']]))
  }, 30_000)
})
