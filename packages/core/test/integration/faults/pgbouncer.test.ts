import { randomUUID } from 'node:crypto'
import { defineSchema, EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { createRoundTripCounter, withSocket } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { findPgBouncer, type StartedPgBouncer, startPgBouncer } from './pgbouncer.ts'
import { expectPoolFree, settleWithin, waitForQuietDatabase, watchProcess } from './support.ts'

const binary = findPgBouncer()
const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const clients: postgres.Sql[] = []
let bouncer: StartedPgBouncer

/** A client connected through PgBouncer, ended after the file. */
function client(options: postgres.Options<Record<string, postgres.PostgresType>> = {}): postgres.Sql {
  const sql = postgres(bouncer.url, { onnotice: () => {}, ...options })
  clients.push(sql)
  return sql
}

if (!binary) {
  test.skip('behind PgBouncer: SKIPPED, no pgbouncer binary (apt-get install pgbouncer, or set PGBOUNCER=/path/to/pgbouncer)', () => {})
}

describe.skipIf(!binary)('behind PgBouncer in transaction pooling mode', () => {
  beforeAll(async () => {
    await db.sql.unsafe(`
      create table pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now());
      create table parent (id bigserial primary key, name text not null);
      create table child (id bigserial primary key, parent_id bigint not null references parent on delete cascade, label text not null);
      create table toy (id bigserial primary key, child_id bigint not null references child on delete cascade, kind text not null);
      create table tally (id int primary key, n int not null, version int not null default 1);
      insert into tally (id, n) select g, 0 from generate_series(1, 6) g;
      create table tally_op (id bigserial primary key, ids int[] not null);
    `)
    bouncer = await startPgBouncer(binary!, db.services.adminUrl, db.name, 'transaction')
  })

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end({ timeout: 1 }).catch(() => {})))
    await bouncer?.stop()
  })

  test('a client that prepares named statements is refused up front with a clear error and the setting that works', async () => {
    const sql = client({ max: 2 })
    const refused = await EntityManager.connect(sql).catch((e: unknown) => e)
    expect(isPipeflushError(refused, 'INVALID_CONFIG')).toBe(true)
    expect((refused as Error).message).toMatch(/pooler/)
    expect((refused as Error).message).toMatch(/prepare: false/)

    // With a schema declared in code, connect does no I/O: the first flush checks and refuses, sending nothing.
    const schema = defineSchema({ parent: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })
    const em = await EntityManager.connect(client({ max: 1 }), { schema })
    em.create('parent', { id: 999_999, name: 'never' })
    await expect(em.flush()).rejects.toMatchObject({ code: 'INVALID_CONFIG' })
    expect(em.pending.inserts).toBe(1)
    const [row] = await db.sql`select count(*)::int as n from parent where id = 999999`
    expect(row?.['n']).toBe(0)
  })

  test.each(modes)(
    '%s with a `prepare: false` client: correct results (insert graph, update, delete) and measured round trips',
    async (mode) => {
      const counter = createRoundTripCounter()
      const sql = client(withSocket({ max: 1, prepare: false }, counter))
      const root = await EntityManager.connect(sql, {
        pipeline: mode,
        flushLog: 'pipeflush_flush_log',
        idBlockSize: 100,
      })
      const graph = (salt: string) => {
        const em = root.fork()
        const p = em.create('parent', { name: `p-${salt}` })
        for (let i = 0; i < 3; i++) {
          const c = em.create('child', { parent_id: p, label: `c${i}-${salt}` })
          em.create('toy', { child_id: c, kind: `ball-${salt}` })
        }
        return { em, p }
      }
      // The first flush fetches ids; the measured ones do not.
      await graph(`${mode}-0`).em.flush()
      const { em, p } = graph(`${mode}-1`)
      counter.reset()
      const created = await em.flush()
      const createTrips = counter.read().roundTrips
      expect(created).toMatchObject({ inserted: 7, statements: 3, waves: 3, idFetch: false, cold: false })
      expect(createTrips).toBe(created.roundTrips)
      const expected = mode === 'burst' ? 1 : mode === 'waves' ? 2 + created.waves : 2 + created.statements
      expect(createTrips).toBe(expected)

      const edit = root.fork()
      const [parent] = await edit.find('parent', { id: p['id'] })
      parent!['name'] = `renamed-${mode}`
      const kids = await edit.find('child', { parent_id: p['id'] })
      edit.remove(kids[0]!)
      counter.reset()
      const edited = await edit.flush()
      expect(edited).toMatchObject({ updated: 1, deleted: 1 })
      expect(counter.read().roundTrips).toBe(edited.roundTrips)
      console.log(
        `[pgbouncer ${bouncer.version}, transaction mode, prepare: false] ${mode}: create (3 statements, 3 waves) ${createTrips} round trip(s), edit ${counter.read().roundTrips}`,
      )

      const rows = await db.sql<{ name: string; kids: number; toys: number }[]>`
        select p.name, (select count(*)::int from child c where c.parent_id = p.id) as kids,
          (select count(*)::int from toy t join child c on c.id = t.child_id where c.parent_id = p.id) as toys
        from parent p where p.id = ${String(p['id'])}`
      expect(rows).toEqual([{ name: `renamed-${mode}`, kids: 2, toys: 2 }])
      // The flush log works through the pooler too.
      expect(await root.wasCommitted(created.flushId)).toBe(true)
      expect(await root.wasCommitted(randomUUID())).toBe(false)
    },
  )

  test('30 concurrent entity managers on 3 clients (server connections change between transactions): no wrong result', async () => {
    const watch = watchProcess()
    try {
      const sqls = [0, 1, 2].map(() => client({ max: 3, prepare: false }))
      const roots = await Promise.all(
        sqls.map((sql, i) =>
          EntityManager.connect(sql, { pipeline: modes[i]!, versionColumn: 'version', idBlockSize: 2 }),
        ),
      )
      let conflicts = 0
      const request = async (i: number) => {
        for (let attempt = 0; attempt < 100; attempt++) {
          const em = roots[i % 3]!.fork()
          const ids = [1 + (i % 6), 1 + ((i + 2) % 6)]
          for (const t of await em.find('tally', { id: ids })) t['n'] = Number(t['n']) + 1
          em.create('tally_op', { ids })
          try {
            await em.flush()
            return
          } catch (e) {
            if (!isPipeflushError(e, 'OPTIMISTIC_LOCK')) throw e
            conflicts++
          }
        }
        throw new Error(`request ${i} gave up`)
      }
      const all = await settleWithin(Promise.all(Array.from({ length: 30 }, (_, i) => request(i))), 45_000)
      expect(all.error).toBeUndefined()
      const [check] = await db.sql<{ bad: number; ops: number }[]>`
        with c as (select x as id, count(*)::int as c from tally_op, unnest(ids) x group by x)
        select (select count(*)::int from tally left join c using (id) where tally.n <> coalesce(c.c, 0) or tally.version <> 1 + tally.n) as bad,
          (select count(*)::int from tally_op) as ops`
      expect(check).toEqual({ bad: 0, ops: 30 })
      expect(conflicts).toBeGreaterThanOrEqual(0)
      for (const sql of sqls) await expectPoolFree(sql, 3)
      await watch.assertClean()
    } finally {
      watch.dispose()
    }
  })

  test('prepare: true forced behind PgBouncer 1.18 (unsupported): each flush commits, fails cleanly, or is outcome-unknown and resolved by the flush log; never a wrong result', async () => {
    const watch = watchProcess()
    try {
      const sqls = [client({ max: 2 }), client({ max: 2 }), client({ max: 2 })]
      const options = { prepare: true, flushLog: 'pipeflush_flush_log', flushTimeoutMs: 1500 } as const
      const roots = await Promise.all(sqls.map((sql) => EntityManager.connect(sql, options)))
      const checker = await EntityManager.connect(db.sql, { flushLog: 'pipeflush_flush_log' })
      const committed: string[] = []
      const notCommitted: string[] = []
      const failures: Record<string, number> = {}
      const flush = async (i: number) => {
        const em = roots[i % 3]!.fork({ pipeline: modes[Math.floor(i / 3) % 3]! })
        const name = `forced-${i}`
        const p = em.create('parent', { name })
        em.create('child', { parent_id: p, label: name })
        const result = await settleWithin(em.flush(), 10_000)
        if (result.ok) {
          committed.push(name)
          return
        }
        if (!isPipeflushError(result.error)) throw result.error
        const reason = result.error.message.includes('does not exist')
          ? `${result.error.code} (prepared statement does not exist)`
          : result.error.code
        failures[reason] = (failures[reason] ?? 0) + 1
        if (result.error.code === 'COMMIT_OUTCOME_UNKNOWN') {
          const done = await checker.wasCommitted(result.error.flushId!)
          ;(done ? committed : notCommitted).push(name)
        } else {
          notCommitted.push(name)
        }
      }
      // Six at a time on a server pool of three: transactions land on whatever server connection is free,
      // where the statements a client prepared elsewhere do not exist.
      for (let round = 0; round < 6; round++) {
        await Promise.all(Array.from({ length: 6 }, (_, k) => flush(round * 6 + k)))
      }
      await waitForQuietDatabase(db.sql)
      const rows = await db.sql<{ name: string; kids: number }[]>`
        select p.name, (select count(*)::int from child c where c.parent_id = p.id and c.label = p.name) as kids
        from parent p where p.name like 'forced-%'`
      expect(rows.map((r) => r.name).sort()).toEqual([...committed].sort())
      expect(rows.every((r) => r.kids === 1)).toBe(true)
      expect(committed.length + notCommitted.length).toBe(36)
      console.log(
        `[pgbouncer ${bouncer.version}, transaction mode, prepare: true forced] ${committed.length} of 36 flushes committed; failures: ${JSON.stringify(failures)}`,
      )
      await watch.assertClean()
    } finally {
      watch.dispose()
    }
  })
})
