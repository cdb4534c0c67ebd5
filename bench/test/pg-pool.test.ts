// The bench's node-postgres pools (integration project: real PostgreSQL, real toxiproxy): a
// connection lost while no query of its runs is told to its next query, never an unhandled 'error'.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { expect, test } from 'vitest'
import { openPgPool } from '../src/series/pg-client.ts'

const db = useTestDatabase()

test.each([
  ['checked out', false],
  ['idle in the pool', true],
])("a client %s whose connection the server ends: no 'error' event unhandled", async (_, idle) => {
  const { pool } = await openPgPool(db.proxiedUrl, 1)
  try {
    const client = await pool.connect()
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid')
    const ended = new Promise((resolve) => client.once('end', resolve))
    if (idle) client.release()
    await db.sql`select pg_terminate_backend(${rows[0]!.pid})`
    await ended
    if (idle) {
      // The pool drops the lost client and opens another.
      expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }])
      return
    }
    await expect(client.query('select 1')).rejects.toThrow(/not queryable|terminat/i)
    client.release(true)
  } finally {
    await pool.end()
  }
})
