import type { FlushPlan, PipelineMode } from '@pipeflush/core'
import { describe, expect, test } from 'vitest'
import { byRoundTrip, extended, plannedLabel, statementLabel } from './message-labels.ts'
import { type ScriptedDriver, scripted } from './scripted-client.ts'
import { failOnStrayErrors } from './stray-errors.ts'
import { expectFlushed, makeChanges } from './unit-of-work.ts'

// What each pipeline mode sends, message by message, on a scripted PostgreSQL peer: no server.
failOnStrayErrors()

const MODES: readonly PipelineMode[] = ['off', 'waves', 'burst']

/** Each driver, and how its statements travel: named pipelined, unnamed pipelined, or simple-protocol text. */
const SETUPS: readonly { driver: ScriptedDriver; prepare?: boolean; what: string }[] = [
  { driver: 'postgres.js', what: 'simple-protocol text' },
  { driver: 'pg', what: 'named statements, pipelined' },
  { driver: 'pg', prepare: false, what: 'unnamed statements, pipelined' },
  { driver: 'pg', prepare: true, what: 'named statements, a burst pipelined too' },
  { driver: 'pg-simple', what: 'a pool without pipeline: simple-protocol text' },
]

/**
 * The messages a flush of `plan` sends in `mode`, one array per round trip: BEGIN, the statements
 * (one per round trip in `off`, a wave per round trip in `waves`), COMMIT; in `burst` one message of
 * every statement, or (`prepare: true` on a pipelining pool) BEGIN, the statements and COMMIT
 * pipelined in one write.
 */
function expectedMessages(
  setup: (typeof SETUPS)[number],
  mode: PipelineMode,
  plan: FlushPlan,
  parsed: boolean,
): string[][] {
  const waves = plan.waves.map((w) => w.map(plannedLabel))
  const all = waves.flat()
  const pipelined = setup.driver === 'pg'
  if (mode === 'burst') {
    if (pipelined && setup.prepare === true)
      return [['Q begin', ...all.flatMap((l) => extended(l, parsed)), 'Q commit']]
    return [[`Q ${all.join('; ')}`]]
  }
  const groups = mode === 'off' ? all.map((l) => [l]) : waves
  const body = groups.map((g) => (pipelined ? g.flatMap((l) => extended(l, parsed)) : [`Q ${g.join('; ')}`]))
  return [['Q begin'], ...body, ['Q commit']]
}

describe.each(SETUPS)('$driver, $what', (setup) => {
  test.each(MODES)(
    '%s: what a flush sends, message by message, and what the server committed',
    async (mode) => {
      const s = await scripted(setup.driver, {
        pipeline: mode,
        ...(setup.prepare === undefined ? {} : { prepare: setup.prepare }),
      })
      try {
        await s.warm()
        const em = s.root.fork()
        const changes = makeChanges(em)
        const plan = em.plan()
        // Four statements in two waves: the new book after its new author, the delete as late as it may go.
        expect(plan.waves.map((w) => w.map(plannedLabel))).toEqual([
          ['update author', 'insert author'],
          ['insert book', 'delete book'],
        ])
        const report = await em.flush()
        const expected = expectedMessages(setup, mode, plan, setup.driver === 'pg')
        expect(byRoundTrip(s.server.log.messages)).toEqual(expected)
        // The report, the server and the client's socket count the same round trips.
        expect(report.roundTrips).toBe(expected.length)
        expect(s.server.log.roundTrips).toBe(expected.length)
        expect(s.counter.read().roundTrips).toBe(expected.length)
        expect(s.server.log.committedTransactions.map((t) => t.statements.map(statementLabel))).toEqual([
          plan.waves.flat().map(plannedLabel),
        ])
        expectFlushed(em, changes)
        const parses = s.server.log.messages.flatMap((m) =>
          m.message.type === 'Parse' ? [m.message.name] : [],
        )
        const named = setup.driver === 'pg' && setup.prepare !== false
        for (const name of parses) expect(name).toMatch(named ? /^pf_/ : /^$/)

        // The same shapes again on the connection: named statements are not parsed again.
        s.server.log.reset()
        makeChanges(s.root.fork())
        const again = s.root.fork()
        makeChanges(again)
        await again.flush()
        expect(byRoundTrip(s.server.log.messages)).toEqual(
          expectedMessages(setup, mode, plan, setup.driver === 'pg' && !named),
        )
        expect(s.server.log.unanswered).toEqual([])
      } finally {
        await s.close()
      }
    },
  )
})

describe.each(['postgres.js', 'pg'] as const)('%s: ids from a sequence', (driver) => {
  test.each(MODES)(
    '%s: one fetch of an id block on the flush connection, before its transaction',
    async (mode) => {
      const s = await scripted(driver, { pipeline: mode, idBlockSize: 10 })
      try {
        await s.warm()
        const em = s.root.fork()
        const first = em.create('tally', { n: 1 })
        const second = em.create('tally', { n: 2 })
        const report = await em.flush()
        const statement = 'insert tally'
        const body =
          mode === 'burst' || driver === 'postgres.js'
            ? mode === 'burst'
              ? [[`Q ${statement}`]]
              : [['Q begin'], [`Q ${statement}`], ['Q commit']]
            : [['Q begin'], extended(statement, true), ['Q commit']]
        expect(byRoundTrip(s.server.log.messages)).toEqual([['Q fetch ids'], ...body])
        expect(report.roundTrips).toBe(1 + body.length)
        expect(report.idFetch).toBeTruthy()
        // The server's sequence starts at 1: the ids of its first block, in the order created.
        expect([first['id'], second['id']].map(String)).toEqual(['1', '2'])
        // The next flush takes its ids from the block: no fetch.
        s.server.log.reset()
        const next = s.root.fork()
        next.create('tally', { n: 3 })
        await next.flush()
        expect(byRoundTrip(s.server.log.messages).flat()).not.toContain('Q fetch ids')
      } finally {
        await s.close()
      }
    },
  )
})

describe.each(['postgres.js', 'pg'] as const)('%s: inserts sent as COPY', (driver) => {
  test.each(MODES)(
    '%s: the data goes behind the message on pg, when the server asks on postgres.js; data the server refuses fails the flush, nothing committed',
    async (mode) => {
      const s = await scripted(driver, { pipeline: mode, copyRows: 2, serverValues: false })
      try {
        await s.warm()
        const em = s.root.fork()
        for (const name of ['A', 'B', 'C']) em.create('author', { name })
        const report = await em.flush()
        const copy =
          driver === 'pg'
            ? [['Q copy author', 'CopyData', 'CopyDone']]
            : [['Q copy author'], ['CopyData', 'CopyDone']]
        const expected = mode === 'burst' ? copy : [['Q begin'], ...copy, ['Q commit']]
        expect(byRoundTrip(s.server.log.messages)).toEqual(expected)
        expect(report.roundTrips).toBe(expected.length)
        expect(s.server.log.executed.map((e) => e.result)).toEqual(
          mode === 'burst' ? ['COPY 3'] : ['BEGIN', 'COPY 3', 'COMMIT'],
        )
        // The server refuses the data (a unique violation found in its last rows).
        s.server.handle({
          match: /^copy /,
          answer: { error: { code: '23505', message: 'duplicate key value', constraint: 'author_name_key' } },
          times: 1,
        })
        s.server.log.reset()
        const refused = s.root.fork()
        for (const name of ['D', 'E', 'F']) refused.create('author', { name })
        await expect(refused.flush()).rejects.toMatchObject({
          code: 'CONSTRAINT_VIOLATION',
          constraint: 'author_name_key',
        })
        expect(s.server.log.committed()).toEqual([])
        expect(refused.pending.inserts).toBe(3)
        await refused.flush()
        expect(s.server.log.committed().map(statementLabel)).toEqual(['copy author'])
      } finally {
        await s.close()
      }
    },
  )
})
