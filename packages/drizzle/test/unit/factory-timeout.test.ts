import { isPipeflushError } from '@pipeflush/core'
import { type SilentServer, startSilentServer } from '@pipeflush/testkit'
import { integer, pgSchema, text } from 'drizzle-orm/pg-core'
import { drizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

// Tables of a pgSchema: the factory asks the search path nothing (the server never answers).
const app = pgSchema('app')
const authors = app.table('author', { id: integer('id').primaryKey(), fullName: text('full_name').notNull() })
const schema = { authors }

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
  test('fork({ flushTimeoutMs }) bounds its reads', async () => {
    const factory = await createEntityManagerFactory({
      db: drizzle(sql, { schema }),
      flushTimeoutMs: 60_000,
      prefetchIds: false, // no query at start: the server never answers
    })
    const em = factory.fork({ flushTimeoutMs: 150 })
    expect(await failure(() => em.find(authors, { fullName: 'Ada' }))).toMatch(
      /^QUERY_TIMEOUT: .* within flushTimeoutMs \(150 ms; /,
    )
  })

  test('run({ flushTimeoutMs }) bounds the work and its flush', async () => {
    const factory = await createEntityManagerFactory({
      db: drizzle(sql, { schema }),
      flushTimeoutMs: 60_000,
      prefetchIds: false, // no query at start: the server never answers
    })
    expect(
      await failure(() =>
        factory.run(
          (em) => {
            em.create(authors, { id: 1, fullName: 'Ada' })
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
