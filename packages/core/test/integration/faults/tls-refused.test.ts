import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { describe, expect, test } from 'vitest'

// postgres.js asked for TLS (`sslmode=require`) by a server without it: reads and flushes fail
// TLS_FAILED saying why once (the reason was added to the driver's message each time the error was
// read: twice in a read's and a flush's).
const db = useTestDatabase()
const schema = defineSchema({ gizmo: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })

describe('postgres.js, TLS required of a server without it', () => {
  test('a read and a flush fail TLS_FAILED, the reason said once', async (context) => {
    const [setting] = await db.sql<{ ssl: string }[]>`show ssl`
    if (setting?.ssl === 'on') context.skip() // the server given takes TLS: nothing to refuse
    const sql = postgres(db.url, { ssl: 'require', max: 1, onnotice: () => {} })
    try {
      const root = await EntityManager.connect(sql, { schema })
      const read = await root
        .fork()
        .find('gizmo', {})
        .catch((e: unknown) => e)
      const em = root.fork()
      em.create('gizmo', { id: 1, name: 'x' })
      const flushed = await em.flush().catch((e: unknown) => e)
      for (const error of [read, flushed]) {
        expect(isPipeflushError(error, 'TLS_FAILED'), String(error)).toBe(true)
        const times = (error as Error).message.split('does not support SSL').length - 1
        expect(times, (error as Error).message).toBe(1)
      }
    } finally {
      await sql.end({ timeout: 1 })
    }
  })
})
