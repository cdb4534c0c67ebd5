import type { Socket } from 'node:net'
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, sleep, watchProcess } from './support.ts'
import { startTestProxy, type TestProxy } from './test-proxy.ts'
import { openTrackedClient } from './tracked-client.ts'

// A path that goes silent (every byte from the server dropped, the TCP connections kept up) while a
// cold pool of several connections opens connections for reads, which give up at their deadline; then
// it heals, dropping the connections it held silent a moment later (as a proxy's black hole, removed,
// closes them). The reads started as it healed must not fail for those old openings: each failed
// opening closes before the server is ready, a failed connection attempt, and on postgres.js three of
// them since a reservation was asked fail it (a server that closes every new connection). Counting
// the attempts begun before the reservation failed every read started as the path healed
// (`CONNECTION_LOST`, "3 attempts failed"), the server being fine.
const db = useTestDatabase()

let proxy: TestProxy
/** While set, nothing from the server reaches a client, and each connection taken is kept. */
let silent = false
const held: Socket[] = []

beforeAll(async () => {
  proxy = await startTestProxy(db.url, (client, upstream) => {
    const server = upstream()
    if (silent) held.push(client)
    client.on('data', (chunk) => server.write(chunk))
    server.on('data', (chunk: Buffer) => {
      if (!silent) client.write(chunk)
    })
  })
})

afterAll(() => proxy.close())

const READS = 4

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([3, 10])(
    'a pool of %i: the reads started as a silent path heals succeed, whatever the openings begun before',
    async (max) => {
      const c = openTrackedClient(driver, proxy.url, { max, postgresJs: { connect_timeout: 10 } })
      const watch = watchProcess()
      try {
        const root = await EntityManager.connect(c.client, { flushTimeoutMs: 600 })
        const read = () => root.fork().select({ text: 'select 1 as n', params: [] })
        silent = true
        const stalled = await Promise.allSettled(Array.from({ length: READS }, read))
        for (const r of stalled) {
          expect(r.status).toBe('rejected')
          const e = (r as PromiseRejectedResult).reason
          expect(isPipeflushError(e, 'QUERY_TIMEOUT'), String(e)).toBe(true)
        }
        expect(held.length, 'openings begun while silent').toBeGreaterThan(0)
        silent = false
        const healed = Array.from({ length: READS }, read)
        // The openings held silent are dropped once the reads were asked.
        await sleep(20)
        for (const s of held.splice(0)) s.destroy()
        for (const settled of await Promise.all(healed.map((r) => settleWithin(r, 5_000, 'a read')))) {
          expect(settled.error, String(settled.error)).toBeUndefined()
          expect(settled.value).toEqual([{ n: 1 }])
        }
        await settleWithin(c.end(), 5_000, 'the end')
        await watch.assertClean()
      } finally {
        silent = false
        for (const s of held.splice(0)) s.destroy()
        watch.dispose()
      }
    },
  )
})
