import { defineSchema, isPipeflushError } from '@pipeflush/core'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { type SilentServer, startSilentServer } from '@pipeflush/testkit'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// A server on loopback that accepts and never answers: a read waits for it until its flushTimeoutMs.
let silent: SilentServer
let sql: postgres.Sql
beforeAll(async () => {
  silent = await startSilentServer()
  sql = postgres({ host: '127.0.0.1', port: silent.port, max: 1, connect_timeout: 30 })
})
afterAll(async () => {
  await sql.end({ timeout: 0 })
  await silent.close()
})

interface DB {
  author: { id: string; name: string }
}
const schema = defineSchema({ author: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })

/** The error `work` rejects with, as `code: message`. */
async function failure(work: () => Promise<unknown>): Promise<string> {
  try {
    await work()
  } catch (e) {
    if (isPipeflushError(e)) return `${e.code}: ${e.message}`
    throw e
  }
  return 'no error'
}

describe("a unit of work's own flushTimeoutMs, beside the factory's", () => {
  test('em({ flushTimeoutMs }) bounds its reads', async () => {
    const factory = await createEntityManagerFactory<DB>({ client: sql, schema, flushTimeoutMs: 60_000 })
    const em = factory.em({ flushTimeoutMs: 150 })
    expect(await failure(() => em.find('author', { name: 'Ada' }))).toMatch(
      /^QUERY_TIMEOUT: .* within flushTimeoutMs \(150 ms; /,
    )
  })

  test('run({ flushTimeoutMs }) bounds the work and its flush', async () => {
    const factory = await createEntityManagerFactory<DB>({ client: sql, schema, flushTimeoutMs: 60_000 })
    expect(
      await failure(() =>
        factory.run(
          (em) => {
            em.create('author', { id: '1', name: 'Ada' })
          },
          { flushTimeoutMs: 150 },
        ),
      ),
    ).toMatch(/^FLUSH_TIMEOUT: .* within flushTimeoutMs \(150 ms; /)
    expect(await failure(() => factory.run(() => {}, { flushTimeoutMs: -1 }))).toMatch(
      /^INVALID_CONFIG: flushTimeoutMs must be a positive number/,
    )
  })
})
