import postgres from 'postgres'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type StartedCluster, startCluster } from '../../src/index.ts'

let cluster: StartedCluster

beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

test('a primary and a streaming hot standby: writes replayed on the standby, which refuses writes until promoted', async () => {
  const primary = postgres(cluster.primary.url, { max: 1, onnotice: () => {} })
  const standby = postgres(cluster.standby.url, { max: 1, onnotice: () => {} })
  try {
    await primary.unsafe('create table kit_cluster (id int primary key); insert into kit_cluster values (1)')
    await cluster.caughtUp()
    expect(
      await standby.unsafe('select count(*)::int as n, pg_is_in_recovery() as standby from kit_cluster'),
    ).toEqual([{ n: 1, standby: true }])
    await expect(standby.unsafe('insert into kit_cluster values (2)')).rejects.toMatchObject({
      code: '25006',
    })
    expect(cluster.primary.url).not.toBe(cluster.standby.url)
    expect(cluster.standby.host).toBe('127.0.0.1')
    await cluster.primary.kill()
    await cluster.promote()
    await standby.unsafe('insert into kit_cluster values (2)')
    expect(
      await standby.unsafe('select count(*)::int as n, pg_is_in_recovery() as standby from kit_cluster'),
    ).toEqual([{ n: 2, standby: false }])
  } finally {
    await primary.end({ timeout: 1 }).catch(() => {})
    await standby.end({ timeout: 1 })
  }
}, 60_000)
