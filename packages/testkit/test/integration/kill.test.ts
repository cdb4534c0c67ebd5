import { readFile } from 'node:fs/promises'
import postgres from 'postgres'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type StartedCluster, startCluster } from '../../src/index.ts'

// kill() is a host failure: the whole server ends at once, backends included. Killing the postmaster
// alone left each backend running until it noticed (a busy one: until its statement ended), and an
// idle one could still take a write and commit for a moment.

let cluster: StartedCluster

beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

/** Whether process `pid` still runs (a zombie, dead but not yet reaped, does not). */
async function runs(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

test('kill() ends every backend of the server at once: a busy one, and an idle one, which commits nothing after', async () => {
  const busy = postgres(cluster.primary.url, { max: 1, onnotice: () => {} })
  const idle = postgres(cluster.primary.url, { max: 1, onnotice: () => {} })
  const admin = postgres(cluster.primary.url, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe('create table kit_kill (id int primary key)')
    const [{ pid: busyPid }] = (await busy.unsafe('select pg_backend_pid() as pid')) as unknown as [
      { pid: number },
    ]
    const [{ pid: idlePid }] = (await idle.unsafe('select pg_backend_pid() as pid')) as unknown as [
      { pid: number },
    ]
    // A statement that never waits (a backend notices its postmaster's death only when it waits),
    // bounded so that nothing is left spinning if the kill misses it.
    const spinning = busy
      .unsafe(`set statement_timeout = '15s'; do $$ begin loop perform 1; end loop; end $$`)
      .catch((e: unknown) => e)
    for (;;) {
      const [row] = (await admin.unsafe(
        `select count(*)::int as n from pg_stat_activity where pid = ${busyPid} and state = 'active'`,
      )) as unknown as [{ n: number }]
      if (row.n === 1) break
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(await runs(busyPid)).toBe(true)

    await cluster.primary.kill()
    expect(await runs(busyPid), 'the busy backend').toBe(false)
    expect(await runs(idlePid), 'the idle backend').toBe(false)
    await expect(idle.unsafe('insert into kit_kill values (1)')).rejects.toBeDefined()
    await spinning
  } finally {
    await Promise.all([busy, idle, admin].map((s) => s.end({ timeout: 1 }).catch(() => {})))
  }
}, 60_000)
