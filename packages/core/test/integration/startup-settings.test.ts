import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import pg from 'pg'
import postgres from 'postgres'
import { describe, expect, test } from 'vitest'

const db = useTestDatabase()

/** A client of `driver` on the test database's URL with `query` added. */
function clientWith(driver: string, query: string): { client: unknown; end(): Promise<void> } {
  const url = `${db.url}${db.url.includes('?') ? '&' : '?'}${query}`
  if (driver === 'pg') {
    const pool = new pg.Pool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
    return { client: pool, end: () => pool.end() }
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  return { client: sql, end: () => sql.end({ timeout: 1 }) }
}

// Bug (outside probe connect4): a connection refused for a setting it sent as it opened (an unknown
// parameter, a bad value; postgres.js sends a URL parameter it does not read, sslrootcert, as one) was
// CONNECTION_LOST, which reads as a fault to retry: it is the connection's configuration.
describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([
    ['an unknown setting', 'options=-c%20no_such_setting%3D1', 'no_such_setting'],
    ['a bad value', 'options=-c%20work_mem%3Dlots', 'work_mem'],
    ...(driver === 'postgres.js'
      ? [['sslrootcert, which postgres.js does not read', 'sslrootcert=/missing.crt', 'sslrootcert']]
      : []),
  ])(
    'a startup setting the server refuses (%s) is INVALID_CONFIG at connect, naming it',
    async (_, query, named) => {
      const { client, end } = clientWith(driver, query)
      try {
        const error = await EntityManager.connect(client).catch((e: unknown) => e)
        expect(isPipeflushError(error, 'INVALID_CONFIG')).toBe(true)
        expect((error as Error).message).toMatch(named)
        expect((error as Error).message).toMatch("check the connection's parameters")
      } finally {
        await end()
      }
    },
  )
})
