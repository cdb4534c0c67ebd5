import { trace } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { type Entity, EntityManager, flushLogDdl, isPipeflushError } from '@pipeflush/core'
import {
  createRoundTripCounter,
  freePort,
  openClient,
  type StartedCluster,
  startCluster,
  TEST_DRIVERS,
  type TestClient,
} from '@pipeflush/testkit'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'

// Reads on replicas, against a real primary and a streaming hot standby of it: which server answered
// is told by the round trips counted at each one's sockets, and by what it answered (the standby's
// replay is paused where a test needs it to answer something older than the primary would).
// Spans in memory (this file runs in a process of its own): the read's span says which server answered.
const exporter = new InMemorySpanExporter()
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }))

let cluster: StartedCluster
let admin: TestClient
let standbyAdmin: TestClient

beforeAll(async () => {
  cluster = await startCluster()
  admin = openClient('postgres.js', cluster.primary.url, createRoundTripCounter())
  standbyAdmin = openClient('postgres.js', cluster.standby.url, createRoundTripCounter())
  await admin.query(`
    create table author (id bigserial primary key, name text not null, version int not null default 1);
    create table book (id bigserial primary key, author_id bigint not null references author, title text not null);
    insert into author (name) values ('Ada'), ('Grace');
    insert into book (author_id, title) values (1, 'Notes'), (1, 'Letters'), (2, 'Compilers');
    ${flushLogDdl('flush_log')};
  `)
  await cluster.caughtUp()
}, 90_000)

afterAll(async () => {
  await admin?.end()
  await standbyAdmin?.end()
  await cluster?.stop()
})

afterEach(async () => {
  // A test that paused the standby's replay leaves it replaying again.
  await standbyAdmin.query('select pg_wal_replay_resume()')
  await cluster.caughtUp()
})

/** Pauses the standby's replay once it has received WAL it has not replayed (it then lags). */
async function pauseReplay(): Promise<void> {
  await standbyAdmin.query('select pg_wal_replay_pause()')
  for (;;) {
    const [row] = await standbyAdmin.query<{ state: string }>(
      'select pg_get_wal_replay_pause_state() as state',
    )
    if (row!.state === 'paused') return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Waits until the standby has received WAL it has not replayed. */
async function received(): Promise<void> {
  for (;;) {
    const [row] = await standbyAdmin.query<{ behind: boolean }>(
      'select pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn() as behind',
    )
    if (row!.behind) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The attributes saying where each read span's statements went, in order. */
const servers = () =>
  exporter
    .getFinishedSpans()
    .filter((s) => s.attributes['pipeflush.server'] !== undefined)
    .map((s) => ({
      server: s.attributes['pipeflush.server'],
      skipped: s.attributes['pipeflush.replicas_skipped'],
    }))

const names = (es: readonly Entity[]) => es.map((e) => String(e['name'] ?? e['title'])).sort()

describe.each(TEST_DRIVERS)('%s', (driver) => {
  const opened: TestClient[] = []
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.end()))
  })

  async function setup(options: { readonly maxReplicaLagMs?: number; readonly replicaUrl?: string } = {}) {
    const primary = openClient(driver, cluster.primary.url, createRoundTripCounter(), { max: 2 })
    const replica = openClient(driver, options.replicaUrl ?? cluster.standby.url, createRoundTripCounter(), {
      max: 2,
      connectTimeoutSeconds: 2,
    })
    opened.push(primary, replica)
    const root = await EntityManager.connect(primary.client, {
      replicas: [replica.client],
      flushLog: 'flush_log',
      tracing: true,
      ...(options.maxReplicaLagMs === undefined ? {} : { maxReplicaLagMs: options.maxReplicaLagMs }),
    })
    await primary.query('select 1')
    if (options.replicaUrl === undefined) await replica.query('select 1')
    primary.counter.reset()
    replica.counter.reset()
    return { root, primary, replica }
  }

  test('reads of a unit of work that has not written go to the replica, its lag in the same round trip; after a flush, to the primary', async () => {
    const { root, primary, replica } = await setup()
    exporter.reset()
    const em = root.fork()
    const [ada, books] = await Promise.all([em.load('author', 1), em.find('book', { author_id: 1 })])
    expect(replica.counter.read().roundTrips).toBe(1)
    expect(primary.counter.read().roundTrips).toBe(0)
    expect(names(books)).toEqual(['Letters', 'Notes'])
    expect(root.replicas).toEqual([
      { address: `127.0.0.1:${cluster.standby.port}`, usable: true, lagMs: 0, reason: undefined },
    ])

    // The standby stops replaying: what the flush writes reaches it, unreplayed.
    await pauseReplay()
    ada!['name'] = `Ada ${driver}`
    replica.counter.reset()
    const report = await em.flush()
    expect(report.roundTrips).toBe(1)
    expect(replica.counter.read().roundTrips).toBe(0)
    await received()

    // This unit of work reads its own writes, from the primary, at no extra round trip.
    primary.counter.reset()
    const [again] = await em.find('author', { name: `Ada ${driver}` })
    expect(again).toBe(ada)
    expect(primary.counter.read().roundTrips).toBe(1)
    expect(replica.counter.read().roundTrips).toBe(0)

    // Another one, which has not written, reads the replica: which has not replayed the flush yet.
    primary.counter.reset()
    const other = root.fork()
    const [stale] = await other.find('author', { id: 1 })
    expect(stale!['name']).not.toBe(`Ada ${driver}`)
    expect(replica.counter.read().roundTrips).toBe(1)
    expect(primary.counter.read().roundTrips).toBe(0)
    expect(root.replicas[0]!.lagMs).toBeGreaterThan(0)
    const replicaServer = `replica 127.0.0.1:${cluster.standby.port}`
    expect(servers()).toEqual([
      { server: replicaServer, skipped: undefined },
      { server: 'primary (read your writes)', skipped: undefined },
      { server: replicaServer, skipped: undefined },
    ])
  })

  test('a replica lagging beyond maxReplicaLagMs: what it read is read again on the primary, then it is left out with its reason', async () => {
    const { root, primary, replica } = await setup({ maxReplicaLagMs: 300 })
    await pauseReplay()
    await admin.query(`update author set name = 'Grace ${driver}' where id = 2`)
    await received()
    await new Promise((resolve) => setTimeout(resolve, 400))

    exporter.reset()
    const em = root.fork()
    const grace = await em.load('author', 2)
    expect(grace!['name']).toBe(`Grace ${driver}`) // the primary's answer
    expect(replica.counter.read().roundTrips).toBe(1)
    expect(primary.counter.read().roundTrips).toBe(1)
    const [status] = root.replicas
    expect(status).toMatchObject({ usable: false })
    expect(status!.lagMs).toBeGreaterThan(300)
    expect(status!.reason).toMatch(/^lagging \d+ ms, more than maxReplicaLagMs \(300\)$/)

    // Left out: the next reads go to the primary only.
    replica.counter.reset()
    primary.counter.reset()
    await em.find('book', { author_id: 2 })
    expect(replica.counter.read().roundTrips).toBe(0)
    expect(primary.counter.read().roundTrips).toBe(1)
    const [onReplica, reread, next] = servers()
    expect(onReplica).toEqual({ server: `replica 127.0.0.1:${cluster.standby.port}`, skipped: undefined })
    expect(reread).toEqual({
      server: 'primary',
      skipped: `127.0.0.1:${cluster.standby.port}: ${status!.reason}`,
    })
    expect(next).toEqual({
      server: 'primary',
      skipped: `127.0.0.1:${cluster.standby.port}: ${status!.reason}`,
    })
  })

  // A replica URL naming another database (a mistake) gave that database's rows, and a flush then
  // wrote them over the primary's rows of the same keys.
  test.each([
    ['with the same tables', 'replica_typo', /serves database "replica_typo", not the primary's/],
    ['without the tables', 'replica_empty', /^down \(it refused a select the primary answered\)/],
  ])(
    'a replica serving another database (%s): what it read is read again on the primary, and it is left out',
    async (_label, name, reason) => {
      // The database, on the primary, reaches the standby's server by replication.
      await admin.query(`drop database if exists ${name}`)
      await admin.query(`create database ${name}`)
      if (name === 'replica_typo') {
        const typo = new URL(cluster.primary.url)
        typo.pathname = `/${name}`
        const other = openClient('postgres.js', typo.toString(), createRoundTripCounter())
        await other.query(`
        create table author (id bigserial primary key, name text not null, version int not null default 1);
        create table book (id bigserial primary key, author_id bigint not null references author, title text not null);
        insert into author (name) values ('Not Ada');
      `)
        await other.end()
      }
      await cluster.caughtUp()
      const url = new URL(cluster.standby.url)
      url.pathname = `/${name}`
      const { root, primary, replica } = await setup({ replicaUrl: url.toString() })
      await replica.query('select 1')
      replica.counter.reset()
      const em = root.fork()
      const [ada] = await em.find('author', { id: 1 })
      expect(ada!['name']).toMatch(/^Ada/) // the primary's author, read again there
      expect([replica.counter.read().roundTrips, primary.counter.read().roundTrips]).toEqual([1, 1])
      const [status] = root.replicas
      expect(status).toMatchObject({ usable: false })
      expect(status!.reason).toMatch(reason)
      replica.counter.reset()
      primary.counter.reset()
      await root.fork().find('book', {})
      expect([replica.counter.read().roundTrips, primary.counter.read().roundTrips]).toEqual([0, 1])
    },
  )

  test('the primary given as its own replica serves reads as one', async () => {
    const { root, primary, replica } = await setup({ replicaUrl: cluster.primary.url })
    await replica.query('select 1')
    replica.counter.reset()
    await root.fork().find('author', {})
    expect([replica.counter.read().roundTrips, primary.counter.read().roundTrips]).toEqual([1, 0])
    expect(root.replicas[0]).toMatchObject({ usable: true, lagMs: 0 })
  })

  test('a replica that is down: the read goes to the primary, the replica is left out with its reason', async () => {
    const { root, primary } = await setup({
      replicaUrl: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
    })
    const em = root.fork()
    const [ada, grace] = await Promise.all([em.load('author', 1), em.load('author', 2)])
    expect([ada!['id'], grace!['id']]).toEqual(['1', '2'])
    expect(primary.counter.read().roundTrips).toBe(1)
    const [status] = root.replicas
    expect(status).toMatchObject({ usable: false, lagMs: undefined })
    expect(status!.reason).toMatch(/^down \(/)
  })

  test('statements that lock or write, and the flush log, go to the primary; a select the server rejects fails as it is', async () => {
    const { root, primary, replica } = await setup()
    const em = root.fork()
    const [locked] = await em.loadRows('author', {
      text: 'select t.id::text as c0, t.name as c1, t.version::text as c2 from author t where t.id = $1 for update',
      params: ['1'],
    })
    expect(locked!['id']).toBe('1')
    expect(primary.counter.read().roundTrips).toBe(1)
    expect(replica.counter.read().roundTrips).toBe(0)

    primary.counter.reset()
    expect(await root.wasCommitted('00000000-0000-4000-8000-000000000000')).toBe(false)
    expect(primary.counter.read().roundTrips).toBe(1)
    expect(replica.counter.read().roundTrips).toBe(0)

    const failed = await em
      .loadRows('author', { text: 'select t.no_such_column from author t', params: [] })
      .catch((e: unknown) => e)
    expect(isPipeflushError(failed, 'STATEMENT_FAILED'), String(failed)).toBe(true)
    expect(root.replicas[0]!.usable).toBe(true) // the application's select, not the replica, failed
  })
})

test('replicas and maxReplicaLagMs are checked at connect', async () => {
  const primary = openClient('postgres.js', cluster.primary.url, createRoundTripCounter())
  try {
    for (const options of [
      { replicas: [] },
      { replicas: 'x' },
      { replicas: [{}] },
      { maxReplicaLagMs: -1 },
    ]) {
      const error = await EntityManager.connect(primary.client, options as never).catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_CONFIG')).toBe(true)
    }
  } finally {
    await primary.end()
  }
})
