// A chaos soak of one driver, run as its own Node process with Node's default handling of unhandled
// rejections and uncaught exceptions (this file installs no handler): a stray rejection, or an error
// thrown from a driver's timer, ends the process with a non-zero exit code and its stack on stderr.
//
// Units of work run `concurrency` at a time on one pool for `seconds`, through a toxiproxy proxy that
// the chaos (`chaos.ts`) keeps breaking. Each unit reads, in one batch, a versioned counter with its
// notes (a graph load) and the account its worker created last (a find), checking that each answer is
// the rows asked for (a read answered with another query's rows is a problem); it creates an account with
// its ledger rows (a few as INSERT, now and then many as COPY) and its owner got or created by upsert
// (a row of the worker's own, referenced by the account in the same flush), moves the counter and flushes, in a
// mode drawn at random (mostly `burst`), retrying the same unit of work after a failure that committed
// nothing. Afterwards, with the network healthy, every outcome is compared with the database.
// Prints one JSON line: what ran, what it found.
import { type Entity, EntityManager, isPipeflushError, type PipelineMode, relationsOf } from '@pipeflush/core'
import { connectToxiproxy, createRoundTripCounter, type DriverName, openClient } from '@pipeflush/testkit'
import postgres from 'postgres'
import { type ChaosLog, seeded, startChaos } from './chaos.ts'

export interface SoakConfig {
  readonly driver: DriverName
  readonly seconds: number
  /** Units of work at a time (default 8). */
  readonly concurrency?: number
  /** Connections in the pool (default 4). */
  readonly pool?: number
  /** pipeflush's `flushTimeoutMs` (default 4,000). */
  readonly flushTimeoutMs?: number
  readonly seed: number
  readonly adminUrl: string
  readonly toxiproxyUrl: string
  readonly postgresHost: string
  readonly postgresPort: number
  /** Prefix of the tables and name of the proxy. */
  readonly name: string
  /** The server speaks TLS: the pool connects over TLS (its certificate not verified: a test's own). */
  readonly tls?: boolean
}

/** What a soak found. */
export interface SoakResult {
  readonly driver: DriverName
  readonly seconds: number
  readonly seed: number
  readonly units: number
  /** Flushes attempted (a unit retried counts each attempt). */
  readonly flushes: number
  /** Outcome of every flush attempt: `ok` or the error's code. */
  readonly outcomes: Record<string, number>
  /** Reads (the counter's graph load and the find of an account, one batch): `ok` or the error's code. */
  readonly reads: Record<string, number>
  /** Unknown outcomes the flush log answered while the chaos went on, and afterwards. */
  readonly resolvedDuring: number
  readonly resolvedAfter: number
  /** Units the database holds (committed), by how the soak learnt it. */
  readonly committed: number
  /** The longest a flush or read took to settle, in ms. */
  readonly slowestMs: number
  readonly modes: Record<PipelineMode, number>
  readonly copies: number
  readonly chaos: ChaosLog
  /**
   * Second by second from the start of the chaos: flushes committed, flushes failed, reads answered,
   * reads failed (`ok/failed ok/failed`). A pool that stopped working shows as a run of `0/n`.
   */
  readonly timeline: readonly string[]
  /** The first message of each error code met (what `outcomes` and `reads` count). */
  readonly messages: Record<string, string>
  /** Everything that broke a guarantee. Empty when the soak passed. */
  readonly problems: readonly string[]
}

/** How long past `flushTimeoutMs` a flush may take to settle before it counts as a hang. */
const SETTLE_SLACK_MS = 1000
/** Ledger rows of most units, and of a unit whose rows go as COPY (at least `COPY_ROWS`). */
const FEW_ROWS = 3
const MANY_ROWS = 60
const COPY_ROWS = 50
const COUNTERS = 16
/** Notes each counter has (rows read with it by the graph load; never written). */
const NOTES = 3
const ATTEMPTS = 4

interface Unit {
  readonly tag: string
  readonly counter: number
  readonly rows: number
  status: 'committed' | 'not committed' | 'unknown'
  /** The flush id of an unknown outcome still to resolve. */
  unknownFlushId?: string
}

const config = JSON.parse(process.argv[2] ?? '{}') as SoakConfig
const result = await soak(config)
process.stdout.write(`${JSON.stringify(result)}\n`)
if (result.problems.length > 0) process.exitCode = 1

async function soak(cfg: SoakConfig): Promise<SoakResult> {
  const concurrency = cfg.concurrency ?? 8
  const timeoutMs = cfg.flushTimeoutMs ?? 4000
  const random = seeded(cfg.seed)
  const admin = postgres(cfg.adminUrl, { max: 2, onnotice: () => {} })
  const t = (table: string) => `${cfg.name}_${table}`
  const q = (table: string) => `"${t(table)}"`
  await admin.unsafe(`
    create table ${q('owner')} (id bigserial primary key, name text not null unique);
    create table ${q('account')} (id bigserial primary key, tag text not null unique, owner text not null,
      owner_id bigint not null references ${q('owner')});
    create table ${q('ledger')} (id bigserial primary key, account_id bigint not null references ${q('account')},
      line int not null, amount numeric(12, 2) not null);
    create table ${q('counter')} (id int primary key, n int not null, version int not null);
    create table ${q('note')} (id bigserial primary key, counter_id int not null references ${q('counter')},
      body text not null);
    create table ${q('flush_log')} (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now());
    insert into ${q('counter')} select g, 0, 1 from generate_series(1, ${COUNTERS}) g;
    insert into ${q('note')} (counter_id, body)
      select c, 'note ' || c || '-' || k from generate_series(1, ${COUNTERS}) c, generate_series(1, ${NOTES}) k;
  `)
  const toxiproxy = await connectToxiproxy(cfg.toxiproxyUrl)
  const proxy = await toxiproxy.proxy(cfg.name, { host: cfg.postgresHost, port: cfg.postgresPort })
  // Over TLS, the proxy's faults land inside records: the TLS layer sees them before the driver.
  const ssl = cfg.tls === true ? { rejectUnauthorized: false } : undefined
  const client = openClient(cfg.driver, proxy.rewriteUrl(cfg.adminUrl), createRoundTripCounter(), {
    max: cfg.pool ?? 4,
    ...(ssl === undefined ? {} : { postgresJs: { ssl }, pg: { ssl } }),
  })
  const options = {
    versionColumn: 'version',
    flushLog: t('flush_log'),
    flushTimeoutMs: timeoutMs,
    copyRows: COPY_ROWS,
    schemas: ['public'],
  }
  if (cfg.tls === true) {
    const [row] = await client.query<{ ssl: boolean }>(
      'select ssl from pg_stat_ssl where pid = pg_backend_pid()',
    )
    if (row?.ssl !== true) throw new Error('the soak over TLS: the pool connected without TLS')
  }
  const root = await EntityManager.connect(client.client, options)
  const notes = [...relationsOf(root.schema, t('counter')).values()].find((r) => r.target.endsWith(t('note')))
  if (notes === undefined) throw new Error(`no relation from ${t('counter')} to ${t('note')}`)

  const problems: string[] = []
  const outcomes: Record<string, number> = {}
  const reads: Record<string, number> = {}
  const messages: Record<string, string> = {}
  const modes: Record<PipelineMode, number> = { off: 0, waves: 0, burst: 0 }
  const units: Unit[] = []
  let flushes = 0
  let copies = 0
  let resolvedDuring = 0
  let slowestMs = 0
  let chaosStarted = performance.now()
  /** Per second of chaos: [flushes ok, flushes failed, reads ok, reads failed]. */
  const seconds: [number, number, number, number][] = []
  /** Counts an outcome (`ok` or an error's code, the first message of each code kept). */
  const count = (into: Record<string, number>, key: string, error?: unknown) => {
    into[key] = (into[key] ?? 0) + 1
    if (error !== undefined) messages[key] ??= String(error)
    const second = Math.floor((performance.now() - chaosStarted) / 1000)
    while (seconds.length <= second) seconds.push([0, 0, 0, 0])
    const tally = seconds[second]!
    tally[(into === reads ? 2 : 0) + (key === 'ok' ? 0 : 1)]! += 1
  }
  const problem = (what: string) => {
    if (problems.length < 200) problems.push(what)
  }
  /** `p` settled, or `hang` past the flush timeout and its slack; the time it took. */
  const settle = async <T>(p: Promise<T>, what: string) => {
    const started = performance.now()
    let timer: NodeJS.Timeout | undefined
    const hang = new Promise<'hang'>((resolve) => {
      timer = setTimeout(() => resolve('hang'), timeoutMs + SETTLE_SLACK_MS + 10_000)
    })
    const settled = await Promise.race([
      p.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      hang,
    ])
    clearTimeout(timer)
    const ms = performance.now() - started
    slowestMs = Math.max(slowestMs, ms)
    if (settled === 'hang')
      problem(`${what} did not settle within ${timeoutMs + SETTLE_SLACK_MS + 10_000} ms`)
    else if (ms > timeoutMs + SETTLE_SLACK_MS) problem(`${what} settled after ${Math.round(ms)} ms`)
    return settled
  }

  /** Problems with a counter read with its notes: any row that is not what was asked for. */
  const checkCounter = (counter: Entity, id: number) => {
    if (Number(counter['id']) !== id)
      problem(`a load of counter ${id} answered counter ${String(counter['id'])}`)
    const read = counter[notes.name] as readonly Entity[]
    const bodies = read.map((n) => `${String(n['counter_id'])}:${String(n['body'])}`).sort()
    const expected = Array.from({ length: NOTES }, (_, k) => `${id}:note ${id}-${k + 1}`)
    if (JSON.stringify(bodies) !== JSON.stringify(expected))
      problem(`counter ${id}'s notes read as ${JSON.stringify(bodies)}`)
  }
  /** Problems with a find of the account tagged `tag` (created by the worker `w`, committed or not). */
  const checkAccounts = (accounts: readonly Entity[], tag: string, w: number) => {
    if (accounts.length > 1) problem(`a find of account ${tag} answered ${accounts.length} rows`)
    for (const a of accounts)
      if (a['tag'] !== tag || a['owner'] !== `owner ${w}`)
        problem(`a find of account ${tag} answered ${String(a['tag'])} of ${String(a['owner'])}`)
  }
  /** Counts a read's outcome; false when it failed (a problem unless the chaos explains it). */
  const readOk = (settled: { ok: boolean; error?: unknown }, what: string): boolean => {
    if (settled.ok) {
      count(reads, 'ok')
      return true
    }
    const code = isPipeflushError(settled.error) ? settled.error.code : 'not a PipeflushError'
    count(reads, code, settled.error)
    // HOST_UNREACHABLE: a new connection was refused while the proxy was disabled.
    if (!['CONNECTION_LOST', 'QUERY_TIMEOUT', 'HOST_UNREACHABLE'].includes(code))
      problem(`${what} failed with ${code}: ${String(settled.error)}`)
    return false
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  let serial = 0
  const worker = async (w: number, until: number) => {
    let lastTag = `w${w}-none`
    while (performance.now() < until) {
      const counterId = 1 + Math.floor(random() * COUNTERS)
      const mode: PipelineMode = random() < 0.7 ? 'burst' : random() < 0.5 ? 'waves' : 'off'
      const em = root.fork({ pipeline: mode })
      // Started in one tick: one read batch, one round trip.
      const [loaded, found] = await Promise.all([
        settle(em.load(t('counter'), counterId, { with: { [notes.name]: true } }), 'a graph load'),
        settle(em.find(t('account'), { tag: lastTag }), 'a find'),
      ])
      if (loaded === 'hang' || found === 'hang') return
      const loadOk = readOk(loaded, 'a graph load')
      if (readOk(found, 'a find') && found.ok) checkAccounts(found.value, lastTag, w)
      if (!loadOk || !loaded.ok) {
        // A pause, as an application would take before its next request: the workers retrying in a
        // tight loop while the proxy refuses connections held this process's event loop, and with it
        // the chaos's own calls (the proxy stayed down seconds longer than the chaos meant).
        await pause(20 + random() * 60)
        continue
      }
      const counter = loaded.value
      checkCounter(counter, counterId)
      const rows = random() < 0.05 ? MANY_ROWS : FEW_ROWS
      if (rows >= COPY_ROWS) copies++
      const tag = `w${w}-${++serial}`
      lastTag = tag
      // Each worker its own owner row (upserts of one row from two flushes at once would wait on each
      // other, and on the counters in another order: a deadlock the soak is not about).
      const owner = em.upsert(t('owner'), { name: `owner ${w}` }, { conflict: ['name'] })
      const account = em.create(t('account'), { tag, owner: `owner ${w}`, owner_id: owner })
      for (let line = 0; line < rows; line++)
        em.create(t('ledger'), { account_id: account, line, amount: `${line}.25` })
      counter['n'] = Number(counter['n']) + 1
      const unit: Unit = { tag, counter: counterId, rows, status: 'not committed' }
      units.push(unit)
      modes[mode]++
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const pendingBefore = JSON.stringify(em.pending)
        flushes++
        const flushed = await settle(em.flush(), `a ${mode} flush`)
        if (flushed === 'hang') return
        if (flushed.ok) {
          count(outcomes, 'ok')
          unit.status = 'committed'
          break
        }
        const e = flushed.error
        if (!isPipeflushError(e)) {
          count(outcomes, 'not a PipeflushError')
          problem(`a flush failed with ${String(e)}`)
          break
        }
        count(outcomes, e.code, e)
        if (e.code === 'OPTIMISTIC_LOCK') break // another unit moved the counter first: nothing committed
        if (JSON.stringify(em.pending) !== pendingBefore)
          problem(`${e.code} changed the unit of work: ${pendingBefore} -> ${JSON.stringify(em.pending)}`)
        // Nothing committed: the same unit of work is flushed again.
        if (['CONNECTION_LOST', 'FLUSH_TIMEOUT', 'HOST_UNREACHABLE'].includes(e.code)) {
          await pause(20)
          continue
        }
        if (e.code !== 'COMMIT_OUTCOME_UNKNOWN') {
          problem(`a flush failed with ${e.code}: ${e.message}`)
          break
        }
        // Ask the flush log now, network or not; if it cannot answer, ask again afterwards.
        const asked = await settle(em.wasCommitted(e.flushId!), 'wasCommitted')
        if (asked === 'hang') return
        if (!asked.ok) {
          unit.status = 'unknown'
          unit.unknownFlushId = e.flushId!
          break
        }
        resolvedDuring++
        if (asked.value) {
          unit.status = 'committed'
          break
        }
      }
    }
  }

  const chaos = startChaos(proxy, random)
  chaosStarted = performance.now()
  const until = performance.now() + cfg.seconds * 1000
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w, until)))
  const chaosLog = await chaos.stop()

  // The network is healthy again: the pool works (a read and a flush, each retried a few times while
  // connections the chaos broke are found out), what is still unknown is resolved, then every outcome
  // is compared with the database.
  let recovered = false
  let lastError: unknown
  for (let i = 0; i < 10 && !recovered; i++) {
    const em = root.fork()
    try {
      const counter = await em.load(t('counter'), 1, { with: { [notes.name]: true } })
      checkCounter(counter, 1)
      em.upsert(t('owner'), { name: 'after the chaos' }, { conflict: ['name'] })
      await em.flush()
      recovered = true
    } catch (e) {
      lastError = e
      await pause(250)
    }
  }
  if (!recovered)
    problem(
      `the pool did not recover once the chaos stopped: 10 tries failed, the last with ${String(lastError)}`,
    )
  let resolvedAfter = 0
  for (const unit of units) {
    if (unit.status !== 'unknown') continue
    let answer: boolean | undefined
    for (let i = 0; i < 20 && answer === undefined; i++) {
      answer = await root.wasCommitted(unit.unknownFlushId!).catch(async () => {
        await pause(250)
        return undefined
      })
    }
    if (answer === undefined) problem(`the flush log never answered for ${unit.tag}`)
    else {
      resolvedAfter++
      unit.status = answer ? 'committed' : 'not committed'
    }
  }
  const held = new Map<string, number>()
  for (const row of await admin.unsafe<{ tag: string; rows: number; owned: boolean }[]>(
    `select a.tag, count(l.id)::int as rows, bool_and(o.name = a.owner) as owned from ${q('account')} a
      join ${q('owner')} o on o.id = a.owner_id left join ${q('ledger')} l on l.account_id = a.id group by a.tag`,
  )) {
    held.set(row.tag, row.rows)
    if (!row.owned) problem(`account ${row.tag} references another owner than the one it upserted`)
  }
  const known = new Set(units.map((u) => u.tag))
  for (const tag of held.keys()) if (!known.has(tag)) problem(`phantom: account ${tag} was never created`)
  const committedBy = new Map<number, number>()
  for (const unit of units) {
    const rows = held.get(unit.tag)
    if (unit.status === 'committed') {
      committedBy.set(unit.counter, (committedBy.get(unit.counter) ?? 0) + 1)
      if (rows === undefined) problem(`lost: ${unit.tag} was reported committed and is not in the database`)
    } else if (rows !== undefined) {
      problem(`phantom: ${unit.tag} (${unit.status}) is in the database`)
    }
    if (rows !== undefined && rows !== unit.rows)
      problem(`partial: ${unit.tag} has ${rows} ledger rows of ${unit.rows}`)
  }
  for (const row of await admin.unsafe<{ id: number; n: number; version: number }[]>(
    `select id, n, version from ${q('counter')} order by id`,
  )) {
    const expected = committedBy.get(row.id) ?? 0
    if (row.n !== expected)
      problem(`counter ${row.id} is at ${row.n}, ${expected} committed flushes moved it`)
    if (row.version !== expected + 1)
      problem(`counter ${row.id} has version ${row.version}, expected ${expected + 1}`)
  }

  await client.end()
  await proxy.remove().catch(() => {})
  await admin.end({ timeout: 1 })
  await new Promise((resolve) => setTimeout(resolve, 200)) // late events of the closed connections
  return {
    driver: cfg.driver,
    seconds: cfg.seconds,
    seed: cfg.seed,
    units: units.length,
    flushes,
    outcomes,
    reads,
    resolvedDuring,
    resolvedAfter,
    committed: units.filter((u) => u.status === 'committed').length,
    slowestMs: Math.round(slowestMs),
    modes,
    copies,
    chaos: chaosLog,
    timeline: seconds.map(([fo, ff, ro, rf]) => `${fo}/${ff} ${ro}/${rf}`),
    messages,
    problems,
  }
}
