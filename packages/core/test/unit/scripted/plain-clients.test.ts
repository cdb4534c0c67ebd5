import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { startScriptedServer } from '@pipeflush/testkit'
import pg from 'pg'
import postgres from 'postgres'
import { expect, test } from 'vitest'
import { statementLabel } from './message-labels.ts'
import { flushAnswers, ROWS, SCHEMA } from './scripted-client.ts'
import { failOnStrayErrors } from './stray-errors.ts'
import { expectFlushed, makeChanges } from './unit-of-work.ts'

// The clients as an application makes them, no test socket of their own: a flush and a read batch on
// the scripted peer in every mode.
failOnStrayErrors()

const CLIENTS = {
  'postgres(url)': (url: string) => postgres(url, { max: 1, onnotice: () => {} }),
  "postgres(url, { ssl: 'prefer' }) (refused: plain)": (url: string) =>
    postgres(url, { max: 1, ssl: 'prefer', onnotice: () => {} }),
  'new pg.Pool({ connectionString, pipeline: true })': (url: string) => {
    const pool = new pg.Pool({ connectionString: url, max: 1, pipeline: true })
    pool.on('error', () => {})
    return pool
  },
}

test.each(Object.keys(CLIENTS) as (keyof typeof CLIENTS)[])('%s', async (made) => {
  const server = await startScriptedServer({ handlers: flushAnswers() })
  const client = CLIENTS[made](server.url)
  try {
    for (const mode of ['off', 'waves', 'burst'] as PipelineMode[]) {
      const root = await EntityManager.connect(client, { schema: SCHEMA, pipeline: mode })
      const em = root.fork()
      const [bo, books] = await Promise.all([
        em.find('author', { name: 'Bo' }),
        em.find('book', { title: 'x' }),
      ])
      expect([bo.map((e) => e['id']), books]).toEqual([[ROWS.bo.id], []])
      const flushing = root.fork()
      const changes = makeChanges(flushing)
      await flushing.flush()
      expectFlushed(flushing, changes)
    }
    expect(
      server.log.committedTransactions.filter((t) =>
        t.statements.some((s) => statementLabel(s) === 'insert author'),
      ),
    ).toHaveLength(3)
    expect(server.log.unanswered).toEqual([])
    expect(server.log.connections).toHaveLength(1)
    if (made.includes('ssl')) expect(server.log.connection(1)?.messages[0]?.type).toBe('SSLRequest')
  } finally {
    await (client instanceof pg.Pool ? client.end() : client.end({ timeout: 1 }))
    await server.close()
  }
})
