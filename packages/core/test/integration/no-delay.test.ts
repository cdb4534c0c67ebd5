import { EntityManager, noDelay } from '@pipeflush/core'
import { createRoundTripCounter, withSocket } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { expect, test } from 'vitest'

const db = useTestDatabase()

test('noDelay(): connections work with TCP_NODELAY, alone and around another socket factory', async () => {
  const plain = postgres(db.proxiedUrl, noDelay({ max: 1 }))
  expect((await plain`select 1 as x`)[0]?.['x']).toBe(1)
  await plain.end()

  const counter = createRoundTripCounter()
  const counted = postgres(db.proxiedUrl, noDelay(withSocket({ max: 1 }, counter)))
  await counted.unsafe('create table nd (id bigserial primary key, v text not null)')
  const root = await EntityManager.connect(counted)
  for (let i = 0; i < 3; i++) {
    const em = root.fork()
    for (let r = 0; r < 200; r++) em.create('nd', { v: 'x'.repeat(20) }) // a burst well over 1 KB
    await counted`select 1`
    counter.reset()
    const report = await em.flush()
    expect(counter.read().roundTrips).toBe(report.roundTrips)
  }
  expect(counter.read().bytesOut).toBeGreaterThan(1024)
  await counted.end()
})
