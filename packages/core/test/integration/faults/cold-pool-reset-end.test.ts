import { createServer, connect as dial, type Server, type Socket } from 'node:net'
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, sleep, watchProcess } from './support.ts'
import { openTrackedClient } from './tracked-client.ts'

// A cold pool of two opens both connections at once for two flushes; the server side of one is reset
// at a byte of its startup. One flush fails CONNECTION_LOST, the other commits, and the application's
// end settles within 2 s. On postgres.js the reset opening's request stays in its queue and the
// connection reopens for it after its backoff: the other opening, asked before the reset but made
// after it, was taken for that reopening, and an end asked before the reopening waited for it forever.
const db = useTestDatabase()
const held = new Set<Socket>()
let proxy: Server
let proxyUrl = ''
/** The next connection is reset after this many of its client's bytes; later ones pass. */
let resetNextAt: number | undefined

beforeAll(async () => {
  await db.sql.unsafe(`
    create table if not exists reset_parent (id serial primary key, name text not null);
    create table if not exists reset_child (id serial primary key, parent_id int not null references reset_parent, name text not null);
  `)
  const target = new URL(db.url)
  proxy = createServer((client) => {
    const up = dial(Number(target.port), target.hostname)
    held.add(client).add(up)
    let resetAt = resetNextAt
    resetNextAt = undefined
    let seen = 0
    const kill = () => {
      client.destroy()
      up.destroy()
    }
    client.on('data', (chunk: Buffer) => {
      if (resetAt !== undefined && seen + chunk.length >= resetAt) {
        const part = chunk.subarray(0, resetAt - seen)
        resetAt = undefined
        const reset = () => {
          client.resetAndDestroy()
          up.resetAndDestroy()
        }
        if (part.length > 0) up.write(part, reset)
        else reset()
        return
      }
      seen += chunk.length
      up.write(chunk)
    })
    up.on('data', (chunk: Buffer) => client.write(chunk))
    for (const s of [client, up]) {
      s.on('close', kill)
      s.on('error', kill)
    }
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const u = new URL(db.url)
  u.host = `127.0.0.1:${(proxy.address() as { port: number }).port}`
  proxyUrl = u.toString()
})

afterAll(async () => {
  for (const s of held) s.destroy()
  await new Promise<void>((resolve) => proxy.close(() => resolve()))
})

/** Client bytes of a startup at which the reset comes (the startup message is some 40-90 bytes). */
const OFFSETS = [0, 20, 52]
const TRIALS = 8

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(OFFSETS)(
    'reset at byte %i of an opening: one flush fails, the other commits, the end settles',
    async (offset) => {
      for (let trial = 0; trial < TRIALS; trial++) {
        const watch = watchProcess()
        const c = openTrackedClient(driver, proxyUrl, {
          max: 2,
          postgresJs: { idle_timeout: 0.05 },
          pg: { idleTimeoutMillis: 50 },
        })
        const root = await EntityManager.connect(c.client, { flushTimeoutMs: 5_000 })
        await c.closeAll() // the pool is cold: both flushes open a connection
        await sleep(100)
        const ems = [0, 1].map((k) => {
          const em = root.fork()
          const parent = em.create('reset_parent', { name: `${driver}-${offset}-${trial}-${k}` })
          em.create('reset_child', { parent_id: parent, name: 'c' })
          return em
        })
        resetNextAt = offset
        const settled = await Promise.allSettled(ems.map((em) => em.flush()))
        resetNextAt = undefined
        for (const s of settled)
          if (s.status === 'rejected') expect(isPipeflushError(s.reason, 'CONNECTION_LOST')).toBe(true)
        const ending = await settleWithin(c.end(), 6_000, 'the end')
        expect(ending.ms).toBeLessThan(2_500)
        await watch.assertClean()
      }
    },
  )
})
