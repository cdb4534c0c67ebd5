import postgres from 'postgres'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createRoundTripCounter, type StartedCluster, startCluster } from '../../src/index.ts'

// The round-trip counter's socket factory with a multi-host URL whose first host is a standby, on
// postgres.js alone: postgres.js closes a connection to a server that does not fit
// target_session_attrs right after its startup and opens it again, where its own sockets go on to
// the next host. The counter's must too, or the connection goes back to the standby for ever.

let cluster: StartedCluster

beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

test('target_session_attrs=primary, the standby first: a cold pool of 3 reaches the primary with every connection', async () => {
  const url = new URL(cluster.primary.url)
  const hosts = `${cluster.standby.host}:${cluster.standby.port},${cluster.primary.host}:${cluster.primary.port}`
  const counter = createRoundTripCounter()
  const sql = postgres(
    `postgres://${url.username}:${url.password}@${hosts}${url.pathname}?target_session_attrs=primary`,
    {
      max: 3,
      connect_timeout: 2,
      onnotice: () => {},
      socket: counter.socket,
    } as postgres.Options<Record<string, postgres.PostgresType>>,
  )
  try {
    const inRecovery = () =>
      sql.unsafe('select pg_is_in_recovery() as standby, pg_sleep(0.2)').then((rows) => rows[0]!['standby'])
    const answered = await Promise.race([
      Promise.all([inRecovery(), inRecovery(), inRecovery()]),
      new Promise((resolve) => setTimeout(() => resolve('no answer within 10 s'), 10_000)),
    ])
    expect(answered).toEqual([false, false, false])
  } finally {
    await sql.end({ timeout: 1 })
  }
}, 60_000)
