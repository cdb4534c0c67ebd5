import { describe, expect, it } from 'vitest'
import type { PgPool } from '../../../src/drivers/pg/client-types.ts'
import { PgAdapter } from '../../../src/drivers/pg/pg-adapter.ts'

// How a connection is had of a pool: by its callback form (pg-pool's: no promise made), or by the
// promise a pool answers when it takes no callback. Either way one connection, or the pool's error.

/** A client as the pool hands it over, told apart by its process id (an emitter, as pg's clients are). */
const client = (pid: number) => ({ processID: pid, on: () => {}, off: () => {} })

/** A pool-shaped object whose `connect` is `connect`. */
function poolWith(connect: (callback?: (error: unknown, c?: unknown) => void) => unknown): PgPool {
  return {
    connect,
    query: () => Promise.resolve([]),
    on: () => {},
    options: {},
    totalCount: 0,
  } as unknown as PgPool
}

describe('PgAdapter.acquire', () => {
  it("takes the pool's callback form, answered later", async () => {
    const adapter = new PgAdapter(poolWith((callback) => setImmediate(() => callback!(undefined, client(7)))))
    expect((await adapter.acquire()).processId()).toBe(7)
  })

  it('takes the promise of a pool that takes no callback', async () => {
    const adapter = new PgAdapter(poolWith(() => Promise.resolve(client(8))))
    expect((await adapter.acquire()).processId()).toBe(8)
  })

  it("fails with the pool's error, given to the callback or by its promise", async () => {
    const refused = new Error('too many clients')
    const byCallback = new PgAdapter(poolWith((callback) => setImmediate(() => callback!(refused))))
    await expect(byCallback.acquire()).rejects.toBe(refused)
    const byPromise = new PgAdapter(poolWith(() => Promise.reject(refused)))
    await expect(byPromise.acquire()).rejects.toBe(refused)
  })

  it('fails with what the pool throws at once (a pool that ended)', async () => {
    const ended = new Error('Cannot use a pool after calling end on the pool')
    const adapter = new PgAdapter(
      poolWith(() => {
        throw ended
      }),
    )
    await expect(adapter.acquire()).rejects.toBe(ended)
  })

  it('answers one connection when a pool both calls back and answers a promise', async () => {
    const adapter = new PgAdapter(
      poolWith((callback) => {
        callback!(undefined, client(9))
        return Promise.resolve(client(10))
      }),
    )
    expect((await adapter.acquire()).processId()).toBe(9)
  })
})
