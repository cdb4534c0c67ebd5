import type { Socket } from 'node:net'
import { EntityManager } from '@pipeflush/core'
import { createRoundTripCounter } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { expect, test } from 'vitest'

const db = useTestDatabase()

// postgres.js writes a query in a setImmediate after it executed it; its close handler clears that
// timer without forgetting it, after which the connection never writes again, not even the startup
// message of its next connection. pipeflush's socket factory runs postgres.js's close handler a
// macrotask late, once the pending write went. Here the close comes before the pending write: without
// the deferral, the next query waits for a startup that is never written (CONNECT_TIMEOUT).
test('postgres.js: a connection whose socket closes while a write is pending connects again', async () => {
  const counter = createRoundTripCounter()
  const sockets: Socket[] = []
  const options = {
    max: 1,
    connect_timeout: 2,
    onnotice: () => {},
    socket: async (o: Parameters<typeof counter.socket>[0]) => {
      const s = await counter.socket(o)
      sockets.push(s)
      return s
    },
  }
  const sql = postgres(db.proxiedUrl, options as postgres.Options<Record<string, postgres.PostgresType>>)
  try {
    await EntityManager.connect(sql) // pipeflush's socket factory from now on
    await sql.unsafe('select 1') // the connection opened through it
    const socket = sockets.at(-1)!
    const pending = sql.unsafe('select 2 as two').execute() // written in a setImmediate
    pending.catch(() => {})
    await Promise.resolve()
    await Promise.resolve() // executed now: its write is pending
    socket.emit('close', false) // the close reaches postgres.js before the pending write
    await pending.catch(() => {})
    const [row] = await sql.unsafe('select 3 as three')
    expect(row?.['three']).toBe(3)
    socket.destroy()
  } finally {
    await sql.end({ timeout: 1 })
  }
})
