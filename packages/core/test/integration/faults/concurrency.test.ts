import { EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { expectPoolFree, settleWithin, watchProcess } from './support.ts'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table acct (id int primary key, n int not null, version int not null default 1);
    insert into acct (id, n) select g, 0 from generate_series(1, 10) g;
    create table acct_b (id int primary key, m int not null, version int not null default 1);
    insert into acct_b (id, m) select g, 0 from generate_series(1, 10) g;
    create table op (id bigserial primary key, request int not null, accts int[] not null, accts_b int[] not null);
  `)
})

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function pick(rnd: () => number, n: number, of: number): number[] {
  const all = Array.from({ length: of }, (_, i) => i + 1)
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    ;[all[i], all[j]] = [all[j]!, all[i]!]
  }
  return all.slice(0, n)
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('50 request-scoped entity managers on a pool of 10 increment overlapping versioned rows: conflicts reported, no lost update, no deadlock, no connection left reserved', async () => {
    // Each driver's run starts from the same rows.
    await db.sql.unsafe(
      'update acct set n = 0, version = 1; update acct_b set m = 0, version = 1; truncate op',
    )
    await db.proxy.setLatency(2) // transactions overlap more when each round trip costs something
    const client = db.client(driver, { max: 10 })
    // A small id block: concurrent flushes also race for ids (each fetch on its own connection).
    const root = await EntityManager.connect(client.client, {
      versionColumn: 'version',
      idBlockSize: 3,
      flushTimeoutMs: 20_000,
    })
    const watch = watchProcess()
    const conflicts: {
      table: string | undefined
      keys: readonly unknown[] | undefined
      touched: number[]
    }[] = []
    const others: unknown[] = []
    const attemptsOf: number[] = []

    const request = async (i: number) => {
      const rnd = random(i + 1)
      const mode = modes[i % modes.length]!
      for (let attempt = 1; attempt <= 50; attempt++) {
        const em = root.fork({ pipeline: mode })
        const ids = pick(rnd, 3, 10)
        const idsB = pick(rnd, 2, 10)
        const rows = await em.find('acct', { id: ids })
        const rowsB = await em.find('acct_b', { id: idsB })
        // Changed in a random order: the planner must sort rows (and tables) so that locks are taken in one order.
        for (const r of [...rows].sort(() => rnd() - 0.5)) r['n'] = Number(r['n']) + 1
        for (const r of rowsB) r['m'] = Number(r['m']) + 1
        em.create('op', { request: i, accts: ids, accts_b: idsB })
        try {
          await em.flush()
          attemptsOf[i] = attempt
          return
        } catch (e) {
          if (isPipeflushError(e, 'OPTIMISTIC_LOCK')) {
            conflicts.push({ table: e.table, keys: e.keys, touched: e.table === 'acct' ? ids : idsB })
            continue
          }
          others.push(e)
          return
        }
      }
    }

    const all = await settleWithin(
      Promise.all(Array.from({ length: 50 }, (_, i) => request(i))),
      45_000,
      '50 concurrent requests',
    )
    expect(all.ok, String(all.error)).toBe(true)
    expect(others.map((e) => String((e as Error)?.message ?? e))).toEqual([]) // no deadlock (40P01) or other failure
    expect(attemptsOf.filter((a) => a !== undefined)).toHaveLength(50)

    // Conflicts happened and were reported as such, naming the table and rows that changed meanwhile.
    expect(conflicts.length).toBeGreaterThan(0)
    for (const c of conflicts) {
      expect(['acct', 'acct_b']).toContain(c.table)
      expect(c.keys?.length).toBeGreaterThan(0)
      for (const k of c.keys ?? []) expect(c.touched).toContain(Number(k))
    }

    // No lost update: every row's counter equals the number of successful operations that touched it,
    // and its version moved once per successful increment.
    const check = await db.sql<{ bad: number; ops: number; n: number; m: number; v: number }[]>`
      with a as (select x as id, count(*)::int as c from op, unnest(accts) x group by x),
           b as (select x as id, count(*)::int as c from op, unnest(accts_b) x group by x)
      select
        (select count(*)::int from acct left join a using (id) where acct.n <> coalesce(a.c, 0) or acct.version <> 1 + acct.n)
        + (select count(*)::int from acct_b left join b using (id) where acct_b.m <> coalesce(b.c, 0) or acct_b.version <> 1 + acct_b.m) as bad,
        (select count(*)::int from op) as ops,
        (select sum(n)::int from acct) as n,
        (select sum(m)::int from acct_b) as m,
        (select count(distinct request)::int from op) as v`
    expect(check[0]).toEqual({ bad: 0, ops: 50, n: 150, m: 100, v: 50 })

    // Nothing is left reserved or stuck: all 10 connections can be reserved at once and answer.
    await expectPoolFree(client, 10)
    const [idle] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state like 'idle in transaction%'`
    expect(idle?.n).toBe(0)
    await watch.assertClean()
    watch.dispose()
    await db.proxy.clearToxics()
  })
})
