import { defineSchema, EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin } from './support.ts'
import { startTestProxy, type TestProxy } from './test-proxy.ts'
import { openTrackedClient } from './tracked-client.ts'

// `EntityManager.connect` against a server that accepts the connection and never answers, on a client
// without a connect timeout of its own (pg's default): connect's own queries (the catalog, the flush
// log check, the pooler check) settle within `flushTimeoutMs` as a read does, QUERY_TIMEOUT, but
// never sooner than 10 s (a first connection and the catalog read take longer than a flush). They
// waited for ever: connect never settled, even with a schema declared in code (the pooler check).
const db = useTestDatabase()
const schema = defineSchema({ gizmo: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })

let silent: TestProxy
let url = ''

beforeAll(async () => {
  // Connections taken and never answered: nothing is opened to the server.
  silent = await startTestProxy(db.url, () => {})
  url = silent.url
})

afterAll(() => silent.close())

const CASES = [
  ['the schema read from the catalog', {}],
  ['a schema declared in code (the pooler check)', { schema }],
  ['a flush log to check', { schema, flushLog: 'flush_log' }],
] as const

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(CASES)(
    '%s: connect fails QUERY_TIMEOUT within flushTimeoutMs, at least 10 s',
    async (name, options) => {
      // postgres.js does not pipeline: no pooler check, so a declared schema connects without a query.
      const noQuery = driver === 'postgres.js' && name.startsWith('a schema declared')
      // The flush log's check is the catalog read's path: once is enough (each case waits 10 s).
      if (driver === 'postgres.js' && name.startsWith('a flush log')) return
      // No connect timeout: postgres.js's default is 30 s, pg has none.
      const c = openTrackedClient(driver, url, { max: 1, postgresJs: { connect_timeout: 30 } })
      try {
        const connecting = await settleWithin(
          EntityManager.connect(c.client, { ...options, flushTimeoutMs: 700 }),
          20_000,
          'connect',
        )
        expect(connecting.ms).toBeLessThan(noQuery ? 2_000 : 12_000)
        if (noQuery) {
          expect(connecting.error).toBeUndefined()
          return
        }
        expect(connecting.error).toMatchObject({ name: 'PipeflushError', code: 'QUERY_TIMEOUT' })
        expect((connecting.error as Error).message).toMatch(
          /within 10000 ms \(connect's own queries wait flushTimeoutMs, at least 10000 ms; /,
        )
      } finally {
        void c.end().catch(() => {})
      }
    },
  )
})
