import { randomUUID } from 'node:crypto'
import { defineSchema, EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { type DriverName, messages } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { findPgBouncer, type StartedPgBouncer, startPgBouncer } from './pgbouncer.ts'
import { expectPoolFree, settleWithin, waitForQuietDatabase, watchProcess } from './support.ts'
import { openTrackedClient, type TrackedClient } from './tracked-client.ts'

const binary = findPgBouncer()
const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const clients: TrackedClient[] = []
let bouncer: StartedPgBouncer

/** A pool of `driver` connected through PgBouncer (or directly, with `url`), ended after the file. */
function client(driver: DriverName, max: number, url = bouncer.url): TrackedClient {
  const c = openTrackedClient(driver, url, { max })
  clients.push(c)
  return c
}

/** The protocol messages the client wrote since `record()`: Parse names, and how many simple Queries. */
function written(c: TrackedClient): { parseNames: string[]; queries: number } {
  const parseNames: string[] = []
  let queries = 0
  for (const bytes of c.recorded()) {
    let start = 0
    for (const m of messages(bytes, { startup: false })) {
      if (m.type === 0x50) parseNames.push(bytes.toString('utf8', start + 5, bytes.indexOf(0, start + 5)))
      if (m.type === 0x51) queries++
      start = m.end
    }
  }
  return { parseNames, queries }
}

/** A parent with three children, each with a toy: 7 rows in 3 tables, 3 waves. */
function graph(root: EntityManager, salt: string) {
  const em = root.fork()
  const p = em.create('parent', { name: `p-${salt}` })
  for (let i = 0; i < 3; i++) {
    const c = em.create('child', { parent_id: p, label: `c${i}-${salt}` })
    em.create('toy', { child_id: c, kind: `ball-${salt}` })
  }
  return { em, p }
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
    await Promise.all(clients.map((c) => c.end()))
    await bouncer?.stop()
  })

  describe.each(TEST_DRIVERS)('%s', (driver) => {
    // PgBouncer refuses both with SQLSTATE 08P01 (protocol_violation) and its own words: they were
    // CONNECTION_LOST, which reads as a network failure worth retrying (found by an outside probe).
    test('a wrong password and an unknown database through the pooler: LOGIN_FAILED and DATABASE_NOT_FOUND', async () => {
      const wrong = new URL(bouncer.url)
      wrong.password = `wrong-${randomUUID()}`
      const unknown = new URL(bouncer.url)
      unknown.pathname = '/pipeflush_no_such_db'
      for (const [url, code] of [
        [wrong, 'LOGIN_FAILED'],
        [unknown, 'DATABASE_NOT_FOUND'],
      ] as const) {
        const c = client(driver, 1, url.toString())
        const error = await EntityManager.connect(c.client).catch((e: unknown) => e)
        expect(isPipeflushError(error, code), String(error)).toBe(true)
        expect((error as { sqlState?: string }).sqlState).toBe('08P01')
      }
    })

    // PgBouncer refuses a startup parameter its ignore_startup_parameters does not list with 08P01
    // and its own words: it was CONNECTION_LOST, and a flush said "flush again to retry", which never
    // succeeds (found by an outside probe). Against the server itself a refused setting is INVALID_CONFIG.
    test('a startup parameter the pooler does not take (options): INVALID_CONFIG at connect and at a flush', async () => {
      const strict = await startPgBouncer(binary!, db.services.adminUrl, db.name, 'transaction', '')
      try {
        const url = new URL(strict.url)
        url.searchParams.set('options', '-c search_path=public')
        const c = client(driver, 1, url.toString())
        const error = await EntityManager.connect(c.client).catch((e: unknown) => e)
        expect(isPipeflushError(error, 'INVALID_CONFIG'), String(error)).toBe(true)
        expect((error as { sqlState?: string }).sqlState).toBe('08P01')
        expect(String(error)).toMatch(/unsupported startup parameter: options/)
        // With a schema given, connect opens a connection on pg (it fails there, as above), none on
        // postgres.js: its first flush opens one, and fails so.
        const schema = defineSchema({ tally: { columns: { id: 'int4', n: 'int4' }, primaryKey: ['id'] } })
        const root = await EntityManager.connect(c.client, { schema }).catch((e: unknown) => e)
        if (!(root instanceof EntityManager)) {
          expect(isPipeflushError(root, 'INVALID_CONFIG'), String(root)).toBe(true)
          return
        }
        const em = root.fork()
        em.create('tally', { id: 100, n: 1 })
        const failed = await em.flush().catch((e: unknown) => e)
        expect(isPipeflushError(failed, 'INVALID_CONFIG'), String(failed)).toBe(true)
        expect(String(failed)).not.toMatch(/retry/)
        expect(em.pending.inserts).toBe(1)
      } finally {
        await strict.stop()
      }
    })

    test(
      driver === 'postgres.js'
        ? 'inserts as COPY through the pooler, in every mode: the data goes when the server asks, the rows land, round trips as counted'
        : 'inserts as COPY through the pooler, in every mode: the data goes with the message, the rows land, round trips as counted',
      async () => {
        for (const mode of modes) {
          const c = client(driver, 1)
          const root = await EntityManager.connect(c.client, {
            pipeline: mode,
            idBlockSize: 100,
            copyRows: 3,
          })
          const em = root.fork()
          const p = em.create('parent', { name: `copy-${driver}-${mode}` })
          for (let i = 0; i < 5; i++)
            em.create('child', { parent_id: p, label: `copy-${driver}-${mode}-${i}` })
          expect(
            em
              .plan()
              .waves.flat()
              .map((s) => s.copy),
          ).toEqual([undefined, true])
          await em.flush() // fetches ids
          const next = root.fork()
          for (let i = 0; i < 5; i++)
            next.create('child', { parent_id: p['id'], label: `copy-${driver}-${mode}-again-${i}` })
          c.counter.reset()
          const report = await next.flush()
          expect(report).toMatchObject({ inserted: 5, idFetch: false })
          expect(c.counter.read().roundTrips).toBe(report.roundTrips)
          // postgres.js waits for the server's request for the data: one round trip more.
          expect(report.roundTrips).toBe((mode === 'burst' ? 1 : 3) + (driver === 'postgres.js' ? 1 : 0))
          const [row] = await db.sql<{ n: number }[]>`
            select count(*)::int as n from child where label like ${`copy-${driver}-${mode}-%`}`
          expect(row?.n).toBe(10)
        }
      },
    )

    test(
      driver === 'pg'
        ? 'a pipelining pg pool as the application made it: a burst is one simple-protocol query; connect finds the pooler, so waves send unnamed statements (named on a direct connection)'
        : 'a postgres.js client as the application made it (prepare on): flushes go as simple-protocol queries, nothing is prepared',
      async () => {
        const behind = client(driver, 1)
        const root = await EntityManager.connect(behind.client, { idBlockSize: 100 })
        await graph(root, `${driver}-warm`).em.flush()
        behind.record()
        const recorded = graph(root, `${driver}-recorded`)
        const report = await recorded.em.flush()
        expect(report).toMatchObject({ inserted: 7, roundTrips: 1 })
        // A burst is one simple-protocol query on both drivers: nothing is named, nothing to lose.
        expect(written(behind)).toEqual({ parseNames: [], queries: 1 })
        // A tick's reads too: pipelined with a Sync each, the pooler would give the server connection
        // back at the first ReadyForQuery and pass the answers after it to another client.
        const reader = root.fork()
        behind.record()
        const [children, toys, parent] = await Promise.all([
          reader.find('child', { parent_id: recorded.p['id'] }),
          reader.find('toy', { kind: `ball-${driver}-recorded` }),
          reader.load('parent', recorded.p['id']),
        ])
        expect(written(behind)).toEqual({ parseNames: [], queries: 1 })
        expect([children.length, toys.length, parent['name']]).toEqual([3, 3, `p-${driver}-recorded`])
        if (driver === 'pg') {
          // Waves pipeline their statements: unnamed behind the pooler (BEGIN and COMMIT, without
          // parameters, go as simple queries)...
          const waves = await EntityManager.connect(behind.client, { idBlockSize: 100, pipeline: 'waves' })
          await graph(waves, `${driver}-waves-warm`).em.flush()
          behind.record()
          await graph(waves, `${driver}-waves`).em.flush()
          expect(written(behind).parseNames).toEqual(['', '', ''])
          // ...and named by the same pool type on a direct connection: the pooler made the difference.
          const direct = client(driver, 1, db.url)
          const directRoot = await EntityManager.connect(direct.client, {
            idBlockSize: 100,
            pipeline: 'waves',
          })
          direct.record()
          const made = graph(directRoot, `${driver}-direct`)
          await made.em.flush()
          expect(written(direct).parseNames.filter((n) => n.startsWith('pf_'))).toHaveLength(3)
          // Reads on the direct connection: pipelined, named.
          const directReader = directRoot.fork()
          direct.record()
          await Promise.all([
            directReader.find('child', { parent_id: made.p['id'] }),
            directReader.find('toy', { kind: `ball-${driver}-direct` }),
          ])
          expect(written(direct)).toMatchObject({ queries: 0 })
          expect(written(direct).parseNames.filter((n) => n.startsWith('pf_'))).toHaveLength(2)
        }
      },
    )

    test.each(modes)(
      '%s: correct results (insert graph, update, delete), flush log, and round trips measured at the socket',
      async (mode) => {
        const c = client(driver, 1)
        const root = await EntityManager.connect(c.client, {
          pipeline: mode,
          flushLog: 'pipeflush_flush_log',
          idBlockSize: 100,
        })
        // The first flush fetches ids; the measured ones do not.
        await graph(root, `${driver}-${mode}-0`).em.flush()
        const { em, p } = graph(root, `${driver}-${mode}-1`)
        c.counter.reset()
        const created = await em.flush()
        const createTrips = c.counter.read().roundTrips
        expect(created).toMatchObject({
          inserted: 7,
          statements: 3,
          waves: 3,
          idFetch: false,
          connected: false,
        })
        expect(createTrips).toBe(created.roundTrips)
        const expected = mode === 'burst' ? 1 : mode === 'waves' ? 2 + created.waves : 2 + created.statements
        expect(createTrips).toBe(expected)

        const edit = root.fork()
        const [parent] = await edit.find('parent', { id: p['id'] })
        parent!['name'] = `renamed-${driver}-${mode}`
        const kids = await edit.find('child', { parent_id: p['id'] })
        edit.remove(kids[0]!)
        c.counter.reset()
        const edited = await edit.flush()
        expect(edited).toMatchObject({ updated: 1, deleted: 1 })
        expect(c.counter.read().roundTrips).toBe(edited.roundTrips)
        console.log(
          `[pgbouncer ${bouncer.version}, transaction mode, ${driver}] ${mode}: create (3 statements, 3 waves) ${createTrips} round trip(s), edit ${c.counter.read().roundTrips}`,
        )

        const rows = await db.sql<{ name: string; kids: number; toys: number }[]>`
          select p.name, (select count(*)::int from child c where c.parent_id = p.id) as kids,
            (select count(*)::int from toy t join child c on c.id = t.child_id where c.parent_id = p.id) as toys
          from parent p where p.id = ${String(p['id'])}`
        expect(rows).toEqual([{ name: `renamed-${driver}-${mode}`, kids: 2, toys: 2 }])
        // The flush log works through the pooler too.
        expect(await root.wasCommitted(created.flushId)).toBe(true)
        expect(await root.wasCommitted(randomUUID())).toBe(false)
      },
    )

    test('30 concurrent entity managers on 3 clients (server connections change between transactions): no wrong result', async () => {
      await db.sql.unsafe('update tally set n = 0, version = 1; truncate tally_op')
      const watch = watchProcess()
      try {
        const pools = [0, 1, 2].map(() => client(driver, 3))
        const roots = await Promise.all(
          pools.map((c, i) =>
            EntityManager.connect(c.client, {
              pipeline: modes[i]!,
              versionColumn: 'version',
              idBlockSize: 2,
            }),
          ),
        )
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
        for (const c of pools) await expectPoolFree(c, 3)
        await watch.assertClean()
      } finally {
        watch.dispose()
      }
    })

    test(
      driver === 'pg'
        ? 'prepare: true forced behind PgBouncer 1.18 (unsupported): each flush commits, fails cleanly, or is outcome-unknown and resolved by the flush log; never a wrong result'
        : 'prepare: true has no effect on postgres.js (its flushes are never prepared): every flush commits',
      async () => {
        const watch = watchProcess()
        try {
          const pools = [client(driver, 2), client(driver, 2), client(driver, 2)]
          const options = { prepare: true, flushLog: 'pipeflush_flush_log', flushTimeoutMs: 1500 } as const
          const roots = await Promise.all(pools.map((c) => EntityManager.connect(c.client, options)))
          const checker = await EntityManager.connect(db.sql, { flushLog: 'pipeflush_flush_log' })
          const committed: string[] = []
          const notCommitted: string[] = []
          const failures: Record<string, number> = {}
          const flush = async (i: number) => {
            const em = roots[i % 3]!.fork({ pipeline: modes[Math.floor(i / 3) % 3]! })
            const name = `forced-${driver}-${i}`
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
          // Six at a time on a server pool of three: transactions land on whatever server connection is
          // free, where the statements a client prepared elsewhere do not exist.
          for (let round = 0; round < 6; round++) {
            await Promise.all(Array.from({ length: 6 }, (_, k) => flush(round * 6 + k)))
          }
          await waitForQuietDatabase(db.sql)
          const rows = await db.sql<{ name: string; kids: number }[]>`
            select p.name, (select count(*)::int from child c where c.parent_id = p.id and c.label = p.name) as kids
            from parent p where p.name like ${`forced-${driver}-%`}`
          expect(rows.map((r) => r.name).sort()).toEqual([...committed].sort())
          expect(rows.every((r) => r.kids === 1)).toBe(true)
          expect(committed.length + notCommitted.length).toBe(36)
          if (driver === 'postgres.js') expect(failures).toEqual({})
          console.log(
            `[pgbouncer ${bouncer.version}, transaction mode, ${driver}, prepare: true forced] ${committed.length} of 36 flushes committed; failures: ${JSON.stringify(failures)}`,
          )
          await watch.assertClean()
        } finally {
          watch.dispose()
        }
      },
    )

    // The cancel sent at a flush's deadline went on a connection of its own while the flush's socket
    // closed at once: PgBouncer, seeing its client leave first, forgot the cancel key ("failed cancel
    // request"), and the backend went on waiting on the lock, holding what it locked, to commit once
    // the lock went (found by an outside probe). The socket now stays open until the cancel went.
    test.each(['burst', 'waves'] as const)(
      '%s mode: a flush given up at its deadline while waiting on a lock leaves no backend waiting behind the pooler; nothing commits late',
      async (mode) => {
        const watch = watchProcess()
        const c = client(driver, 2)
        const root = await EntityManager.connect(c.client, {
          flushTimeoutMs: 800,
          flushLog: 'pipeflush_flush_log',
        })
        const em = root.fork({ pipeline: mode })
        const [row] = await em.find('tally', { id: 6 })
        const before = row!['n']
        const holder = await db.sql.reserve()
        try {
          await holder.unsafe('begin; select 1 from tally where id = 6 for update')
          row!['n'] = Number(before) + 1000
          const error = await em.flush().catch((e: unknown) => e)
          expect(isPipeflushError(error), String(error)).toBe(true)
          expect(['COMMIT_OUTCOME_UNKNOWN', 'FLUSH_TIMEOUT']).toContain((error as { code: string }).code)
          // The lock still held: the given-up flush's backend is not waiting on it.
          const deadline = performance.now() + 3000
          let waiting = 1
          while (waiting > 0 && performance.now() < deadline) {
            const [w] = await db.sql<{ n: number }[]>`
              select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`
            waiting = w!.n
            if (waiting > 0) await new Promise((r) => setTimeout(r, 50))
          }
          expect(waiting, 'backends still waiting on the lock').toBe(0)
        } finally {
          await holder.unsafe('rollback').catch(() => {})
          holder.release()
        }
        await new Promise((r) => setTimeout(r, 300))
        const [stored] = await db.sql<{ n: number }[]>`select n from tally where id = 6`
        expect(stored!.n, 'nothing committed late').toBe(before)
        await watch.assertClean()
        watch.dispose()
      },
      20_000,
    )
  })
})
