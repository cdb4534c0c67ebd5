import type { PipelineMode } from '@pipeflush/core'
import { describe, expect, test } from 'vitest'
import { FLUSH_SETUPS, type FlushSetup } from './flush-case.ts'
import { byRoundTrip, extended, statementLabel } from './message-labels.ts'
import { ROWS, scripted } from './scripted-client.ts'
import { failOnStrayErrors } from './stray-errors.ts'

// The transaction a locking read begins and the flush commits (`read/held-transaction.ts`), on a
// scripted PostgreSQL peer: no server.
failOnStrayErrors()

const name = (setup: FlushSetup) => `${setup.driver}, ${setup.mode}${setup.prepare ? ' (prepare: true)' : ''}`

/** What a flush of one update sends in a transaction a locking read began: no BEGIN, the COMMIT. */
function flushInTransaction(setup: FlushSetup): string[][] {
  const pipelined = setup.driver === 'pg'
  if (setup.mode === 'burst') {
    // A pipelining session ends the transaction it holds with a COMMIT of its own, pipelined.
    if (pipelined) return [[...extended('update author', setup.prepare !== false), 'Q commit']]
    return [['Q update author; commit']]
  }
  return [pipelined ? extended('update author', true) : ['Q update author'], ['Q commit']]
}

async function locked(setup: FlushSetup) {
  const s = await scripted(setup.driver, {
    pipeline: setup.mode as PipelineMode,
    ...(setup.prepare === undefined ? {} : { prepare: setup.prepare }),
  })
  await s.warm()
  const em = s.root.fork()
  const bo = await em.load('author', ROWS.bo.id, { lock: 'update' })
  return { s, em, bo }
}

describe.concurrent.each(FLUSH_SETUPS.map((s) => ({ ...s, name: name(s) })))('$name', (setup) => {
  test('lock, read, decide, write: BEGIN goes with the locking select; later reads run in the transaction; the flush sends no BEGIN and commits it', async () => {
    const { s, em, bo } = await locked(setup)
    try {
      const begin =
        setup.driver === 'pg'
          ? ['Q begin', ...extended('select author for update', true)]
          : ['Q begin; select author for update']
      expect(byRoundTrip(s.server.log.messages)).toEqual([begin])
      expect(s.server.log.connection(1)?.status).toBe('T')
      s.server.log.reset()
      await em.find('book', { title: 'x' }) // in the transaction, on its connection
      bo['name'] = 'Bob'
      const report = await em.flush()
      expect(byRoundTrip(s.server.log.messages)).toEqual([
        // In the transaction, pipelined selects are named as they are elsewhere: parsed once per
        // connection (the warm-up parsed this one), unless statements may not be named.
        setup.driver === 'pg' ? extended('select book', setup.prepare === false) : ['Q select book'],
        ...flushInTransaction(setup),
      ])
      expect(report.roundTrips).toBe(flushInTransaction(setup).length)
      const [transaction] = s.server.log.connection(1)!.transactions
      expect(transaction).toMatchObject({ explicit: true, outcome: 'committed' })
      expect(transaction!.statements.map(statementLabel)).toEqual([
        'select author for update',
        'select book',
        'update author',
      ])
      expect(s.server.log.connections).toHaveLength(1)
      expect(em.pending.updates).toBe(0)
    } finally {
      await s.close()
    }
  })

  test('nothing to write: the flush still sends the COMMIT; em.clear() sends ROLLBACK instead', async () => {
    const { s, em } = await locked(setup)
    try {
      s.server.log.reset()
      await em.flush()
      expect(byRoundTrip(s.server.log.messages)).toEqual([['Q commit']])
      expect(s.server.log.committedTransactions.map((t) => t.statements.map(statementLabel))).toEqual([
        ['select author for update'],
      ])
      const other = s.root.fork()
      await other.load('author', ROWS.cy.id, { lock: 'share' })
      s.server.log.reset()
      await other.clear()
      expect(byRoundTrip(s.server.log.messages)).toEqual([['Q rollback']])
      expect(s.server.log.connection(1)?.transactions.map((t) => t.outcome)).toEqual(['rolled back'])
      expect(s.server.log.connection(1)?.status).toBe('I')
    } finally {
      await s.close()
    }
  })

  test('its connection lost while held: the flush fails with LOCKS_RELEASED sending nothing; the next flushes as a unit of work that never locked', async () => {
    const { s, em, bo } = await locked(setup)
    try {
      s.server.dropConnections()
      // Time for the client to read the end (a flush that starts before fails on the connection instead).
      await new Promise((resolve) => setTimeout(resolve, 200))
      s.server.log.reset()
      bo['name'] = 'Bob'
      await expect(em.flush()).rejects.toMatchObject({ code: 'LOCKS_RELEASED' })
      expect(s.server.log.messages).toEqual([])
      expect(em.pending.updates).toBe(1)
      await em.flush()
      const sent = byRoundTrip(s.server.log.messages.filter((m) => m.type !== 'StartupMessage')).flat()
      expect(sent[0]).toMatch(/^Q (begin|update author)/)
      expect(s.server.log.committed().map(statementLabel)).toEqual(['update author'])
    } finally {
      await s.close()
    }
  })

  test('a flush that fails in it commits nothing and releases the locks: the next flush is told LOCKS_RELEASED', async () => {
    const { s, em, bo } = await locked(setup)
    try {
      s.server.handle({
        match: /^with w as \(update/,
        answer: { error: { code: '23514', message: 'violates check constraint', constraint: 'name_check' } },
        times: 1,
      })
      bo['name'] = 'Bob'
      await expect(em.flush()).rejects.toMatchObject({
        code: 'CONSTRAINT_VIOLATION',
        constraint: 'name_check',
      })
      expect(s.server.log.committed()).toEqual([])
      expect(s.server.log.connection(1)?.transactions.at(-1)?.outcome).toBe('rolled back')
      await expect(em.flush()).rejects.toMatchObject({ code: 'LOCKS_RELEASED' })
    } finally {
      await s.close()
    }
  })
})
