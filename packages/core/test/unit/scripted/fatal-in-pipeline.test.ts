import { isPipeflushError } from '@pipeflush/core'
import { describe, expect, test } from 'vitest'
import { ROWS, scripted } from './scripted-client.ts'
import { failOnStrayErrors } from './stray-errors.ts'

// A statement of a pipeline answered with a FATAL (the server shutting the session down: 57P01) ends
// that connection: the flush fails, and the connection is not given back to the pool, so the next
// request opens a new one instead of finding it dead.
failOnStrayErrors()

describe.each(['off', 'waves'] as const)('pg, %s', (mode) => {
  test('a FATAL answer to a pipelined statement: the flush fails, and the next read opens a new connection', async () => {
    const s = await scripted('pg', { pipeline: mode }, [
      {
        match: /^update "public"\."author"|^with w as \(update "public"\."author"/,
        answer: {
          error: {
            code: '57P01',
            severity: 'FATAL',
            message: 'terminating connection due to administrator command',
          },
        },
        times: 1,
      },
    ])
    try {
      await s.warm()
      const em = s.root.fork()
      const [bo] = await em.find('author', { id: ROWS.bo.id })
      if (bo === undefined) throw new Error('no author read')
      bo['name'] = 'Bob'
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error), String(error)).toBe(true)
      expect((error as { code: string }).code).toMatch(/CONNECTION_LOST|COMMIT_OUTCOME_UNKNOWN/)
      const before = s.server.log.connections.length
      const [again] = await s.root.fork().find('author', { id: ROWS.cy.id })
      expect(again?.['name']).toBe(ROWS.cy.name)
      expect(s.server.log.connections.length).toBe(before + 1)
    } finally {
      await s.close()
    }
  })
})
