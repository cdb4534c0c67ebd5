// A fault sweep of one combination, run as its own Node process with Node's default handling of
// unhandled rejections and uncaught exceptions (this file installs no handler): a stray rejection
// ends the process with a non-zero exit code, which fails the test that started it.
//
// For each toxic and each byte offset: arm the fault, flush a unit of work (a parent row, 40 child
// rows, an audit row, a versioned update, a delete, two labels got or created by upsert and referenced
// by the parent and the audit row), wait for it to settle, remove the fault, check
// the database holds all of the flush or none of it (asking the flush log when the outcome is
// unknown), check the unit of work kept its changes, and flush it again once the network is back.
// Prints one JSON line: the cases and their outcomes.
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import {
  type Entity,
  EntityManager,
  type FlushReport,
  isPipeflushError,
  type PipelineMode,
  relationsOf,
} from '@pipeflush/core'
import {
  type CutAction,
  connectToxiproxy,
  createRoundTripCounter,
  type Direction,
  type DriverName,
  messages,
  openClient,
  type RoundTripCounter,
  startCutProxy,
  type TestClient,
} from '@pipeflush/testkit'
import postgres from 'postgres'

export type Toxic = 'limit_data' | 'reset_peer' | 'timeout'
export type ReadKind = 'find' | 'load' | 'wasCommitted' | 'batch' | 'graph'

export interface SweepConfig {
  readonly driver: DriverName
  readonly mode: PipelineMode
  readonly direction: Direction
  readonly pool: number
  readonly warm: boolean
  readonly toxics: readonly Toxic[]
  /** `flush` (the default) cuts flushes; `reads` cuts `find`, `load` and `wasCommitted`. */
  readonly kind?: 'flush' | 'reads'
  /** Evenly spaced offsets per toxic, besides the message boundaries (and their neighbours). */
  readonly offsets: number
  /** Phase boundaries cut at most (spread over all of them), each there and one byte past it. */
  readonly boundaryCuts: number
  /** pipeflush's `copyRows`: 40 sends the 40 child rows as COPY (pipeflush's default otherwise). */
  readonly copyRows?: number
  /**
   * The unit of work: `mixed` (the default: an update, a delete, a parent, 40 children, an audit row)
   * or `plain-inserts` (40 audit rows only: plain inserts, sent as COPY).
   */
  readonly unit?: 'mixed' | 'plain-inserts'
  readonly adminUrl: string
  readonly toxiproxyUrl: string
  readonly postgresHost: string
  readonly postgresPort: number
  readonly name: string
}

export interface CaseResult {
  readonly toxic: Toxic
  /** For a sweep of reads: which read. */
  readonly read?: ReadKind
  readonly offset: number
  /** `ok` or the error code. */
  readonly outcome: string
  readonly committed: boolean
  /** Milliseconds from the first socket end seen during the flush to its settling (null: no socket ended first). */
  readonly settleAfterEndMs: number | null
  readonly flushMs: number
  /** The error's message, shortened. */
  readonly message?: string
  /** What went wrong, if anything. */
  readonly problem?: string
}

export interface SweepResult {
  readonly config: Omit<SweepConfig, 'adminUrl' | 'toxiproxyUrl'>
  readonly bytes: number
  readonly boundaries: number
  readonly cases: readonly CaseResult[]
}

const FLUSH_TIMEOUT_MS = 200
/** The flushes that set a combination up are not under test: they may take their time. */
const SETUP_TIMEOUT_MS = 10_000
const SETTLE_LIMIT_MS = 10_000
/** How long a case flushes again after a failure, once the fault is gone. */
const RETRY_FOR_MS = 10_000

/** Failures a retry may meet while the pool reconnects; any other is a problem. */
function isRetryable(code: string): boolean {
  return code === 'FLUSH_TIMEOUT' || code === 'CONNECTION_LOST'
}
const CHILDREN = 40

const config = JSON.parse(process.argv[2] ?? '{}') as SweepConfig
const result = await sweep(config)
process.stdout.write(`${JSON.stringify(result)}\n`)
if (process.env['SWEEP_SAVE']) {
  const { writeFileSync } = await import('node:fs')
  writeFileSync(`${process.env['SWEEP_SAVE']}/${config.name}.json`, JSON.stringify(result, null, 1))
}
if (result.cases.some((c) => c.problem !== undefined)) process.exitCode = 1

async function sweep(cfg: SweepConfig): Promise<SweepResult> {
  const admin = postgres(cfg.adminUrl, { max: 2, onnotice: () => {} })
  const cut = await startCutProxy({ host: cfg.postgresHost, port: cfg.postgresPort })
  const toxiproxy = await connectToxiproxy(cfg.toxiproxyUrl)
  const proxy = await toxiproxy.proxy(cfg.name, { host: cut.host, port: cut.port })
  const url = proxy.rewriteUrl(cfg.adminUrl)
  const p = `"${cfg.name}`
  const t = (table: string) => `${p}_${table}"`
  await admin.unsafe(`
    create table ${t('label')} (id bigserial primary key, name text not null unique);
    create table ${t('parent')} (id bigserial primary key, tag text not null, label_id bigint references ${t('label')});
    create table ${t('child')} (id bigserial primary key, parent_id bigint not null references ${t('parent')}, tag text not null, n int not null);
    create table ${t('audit')} (id bigserial primary key, tag text not null, note text not null, label_id bigint references ${t('label')});
    create table ${t('counter')} (id int primary key, n int not null, version int not null);
    create table ${t('doomed')} (id int primary key, tag text not null);
    insert into ${t('counter')} values (1, 0, 1);
  `)
  const clients: TestClient[] = []
  /** When each client's sockets closed, and which are open. */
  const closesOf = new Map<TestClient, number[]>()
  const socketsOf = new Map<TestClient, Set<Socket>>()
  /** A client whose sockets' ends are recorded. */
  const openTracked = (): TestClient => {
    const closes: number[] = []
    const sockets = new Set<Socket>()
    const counter = trackCloses(createRoundTripCounter(), closes, sockets)
    const c = openClient(cfg.driver, url, counter, { max: cfg.pool, connectTimeoutSeconds: 2 })
    clients.push(c)
    closesOf.set(c, closes)
    socketsOf.set(c, sockets)
    return c
  }
  /** Closes the client's connections (the pool opens new ones on demand): a cold pool. */
  const coldPool = async (client: TestClient) => {
    const sockets = [...(socketsOf.get(client) ?? [])]
    await Promise.all(sockets.map((s) => new Promise((resolve) => s.once('close', resolve).destroy())))
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const options = {
    pipeline: cfg.mode,
    versionColumn: 'version',
    flushLog: 'pipeflush_flush_log',
    flushTimeoutMs: FLUSH_TIMEOUT_MS,
    ...(cfg.copyRows === undefined ? {} : { copyRows: cfg.copyRows }),
  }
  const warmClient = openTracked()
  const warmRoot = await EntityManager.connect(warmClient.client, options)
  // Cold cases: one pool whose connections are closed before each case, so the flush opens one (its
  // id pool, shared by the cases, is short now and then: some of those flushes fetch ids first).
  const coldClient = cfg.warm ? undefined : openTracked()
  const coldRoot = coldClient
    ? await EntityManager.connect(coldClient.client, { ...options, schema: warmRoot.schema, prepare: true })
    : undefined
  /** The root entity manager of a case, its pool warm or cold. */
  const rootFor = async (): Promise<{ root: EntityManager; client: TestClient }> => {
    if (!coldClient || !coldRoot) return { root: warmRoot, client: warmClient }
    await coldPool(coldClient)
    return { root: coldRoot, client: coldClient }
  }
  let caseNo = 0
  const doomed = async (from: number, to: number) =>
    admin.unsafe(
      `insert into ${t('doomed')} select g, 'c' || lpad(g::text, 5, '0') from generate_series(${from}, ${to}) as g`,
    )
  await doomed(1, 2)
  /**
   * A unit of work of case `tag`: an update of the counter (as the database holds it now), a delete of
   * a doomed row, the new rows; the parent references a label that exists after the first flush, the
   * audit row one of its own, both got or created by upsert in the same flush.
   */
  const unitOf = async (root: EntityManager, flushTimeoutMs = FLUSH_TIMEOUT_MS) => {
    const tag = `c${String(++caseNo).padStart(5, '0')}`
    const [counter] = await admin.unsafe<{ n: number; version: number }[]>(
      `select n, version from ${t('counter')} where id = 1`,
    )
    const n = counter?.n ?? 0
    const em = root.fork({ flushTimeoutMs })
    if (cfg.unit === 'plain-inserts') {
      for (let i = 0; i < CHILDREN; i++)
        // Every column given (label_id too): nothing to read back, so the rows may go as COPY.
        em.create(`${cfg.name}_audit`, { tag, note: `case ${caseNo} row ${i}`, label_id: null })
      return { em, root, tag, counterBefore: n, caseNo }
    }
    const loaded = em.merge(`${cfg.name}_counter`, { id: 1, n, version: counter?.version ?? 1 })
    loaded['n'] = n + 1
    em.remove(em.merge(`${cfg.name}_doomed`, { id: caseNo, tag }))
    const shared = em.upsert(`${cfg.name}_label`, { name: 'shared' }, { conflict: ['name'] })
    const own = em.upsert(`${cfg.name}_label`, { name: tag }, { conflict: ['name'] })
    const parent = em.create(`${cfg.name}_parent`, { tag, label_id: shared })
    for (let i = 0; i < CHILDREN; i++) em.create(`${cfg.name}_child`, { parent_id: parent, tag, n: i })
    em.create(`${cfg.name}_audit`, { tag, note: `case ${caseNo}`, label_id: own })
    return { em, root, tag, counterBefore: n, caseNo }
  }
  /** What of case `tag` the database holds: all, none, or something in between (a partial commit). */
  const stateOf = async (
    tag: string,
    id: number,
    counterBefore: number,
  ): Promise<'all' | 'none' | string> => {
    const [row] = await admin.unsafe<
      { p: number; c: number; a: number; d: number; n: number; l: number; al: number }[]
    >(`
      select (select count(*)::int from ${t('parent')} as x join ${t('label')} as l on l.id = x.label_id
          where x.tag = '${tag}' and l.name = 'shared') as p,
        (select count(*)::int from ${t('label')} where name = '${tag}') as l,
        (select count(*)::int from ${t('audit')} as x join ${t('label')} as l on l.id = x.label_id
          where x.tag = '${tag}' and l.name = '${tag}') as al,
        (select count(*)::int from ${t('child')} where tag = '${tag}') as c,
        (select count(*)::int from ${t('audit')} where tag = '${tag}') as a,
        (select count(*)::int from ${t('doomed')} where id = ${id}) as d,
        (select n from ${t('counter')} where id = 1) as n`)
    if (cfg.unit === 'plain-inserts')
      return row?.a === CHILDREN ? 'all' : row?.a === 0 ? 'none' : JSON.stringify(row)
    const all =
      row?.p === 1 &&
      row.c === CHILDREN &&
      row.a === 1 &&
      row.l === 1 &&
      row.al === 1 &&
      row.d === 0 &&
      row.n === counterBefore + 1
    const none =
      row?.p === 0 && row.c === 0 && row.a === 0 && row.l === 0 && row.d === 1 && row.n === counterBefore
    return all ? 'all' : none ? 'none' : JSON.stringify(row)
  }

  // Measure the bytes of one flush as the sweep will make it (warm: on an open connection that sent
  // these statements before; cold: opening the connection, fetching ids, flushing).
  const warmup = await unitOf(warmRoot, SETUP_TIMEOUT_MS)
  const copies = warmup.em
    .plan()
    .waves.flat()
    .filter((s) => s.copy)
    .map((s) => s.table)
  const copied = cfg.unit === 'plain-inserts' ? `${cfg.name}_audit` : `${cfg.name}_child`
  const expected = cfg.copyRows !== undefined && cfg.copyRows <= CHILDREN ? [copied] : []
  if (JSON.stringify(copies) !== JSON.stringify(expected))
    throw new Error(
      `statements sent as COPY: ${JSON.stringify(copies)}, expected ${JSON.stringify(expected)}`,
    )
  await warmup.em.flush()
  const measured = await rootFor()
  if (cfg.kind === 'reads') return finish(await readCases(measured.root, warmup.tag))
  const probe = await unitOf(measured.root, SETUP_TIMEOUT_MS)
  cut.record()
  await probe.em.flush()
  const bytes = cut.recorded()[cfg.direction]
  const boundaries = phaseBoundaries(messages(bytes, { startup: !cfg.warm && cfg.direction === 'upstream' }))
  const offsets = offsetsFor(bytes.length, boundaries, cfg.offsets, cfg.boundaryCuts)

  const cases: CaseResult[] = []
  const only = process.env['SWEEP_OFFSETS']?.split(',').map(Number)
  await doomed(3, 2 + cfg.toxics.length * (only ?? offsets).length)
  for (const toxic of cfg.toxics) {
    for (const offset of only ?? offsets) {
      const { root, client } = await rootFor()
      const unit = await unitOf(root)
      const pendingBefore = JSON.stringify(unit.em.pending)
      const started = performance.now()
      const closes = closesOf.get(client)!
      const closedBefore = closes.length
      const disarm = await arm(toxic, offset, closes)
      const settled = await settle(unit.em.flush())
      const settledAt = performance.now()
      await disarm()
      const firstEnd = closes.slice(closedBefore).find((at) => at >= started)
      const settleAfterEndMs = firstEnd === undefined || firstEnd > settledAt ? null : settledAt - firstEnd
      const outcome = settled.ok ? 'ok' : settled.code
      const problems: string[] = []
      let state = await stateOf(unit.tag, unit.caseNo, unit.counterBefore)
      if (state !== 'all' && state !== 'none') problems.push(`partial commit: ${state}`)
      const committed = state === 'all'
      if (settled.ok && !committed) problems.push('the flush succeeded but the database does not hold it')
      if (!settled.ok) {
        if (settled.code === 'COMMIT_OUTCOME_UNKNOWN') {
          const said = await checker(root).wasCommitted(settled.flushId!)
          // The check fences a late COMMIT: from now on the database must agree with its answer.
          state = await stateOf(unit.tag, unit.caseNo, unit.counterBefore)
          if (said !== (state === 'all'))
            problems.push(`wasCommitted said ${said}, the database holds ${state}`)
        } else if (committed) {
          problems.push(`${settled.code} but the flush committed`)
        }
        if (settled.code === 'hang') problems.push(`the flush did not settle within ${SETTLE_LIMIT_MS} ms`)
        if (!settled.pipeflush) problems.push(`not a PipeflushError: ${settled.message}`)
        if (JSON.stringify(unit.em.pending) !== pendingBefore)
          problems.push(`the unit of work changed: ${JSON.stringify(unit.em.pending)}`)
      }
      if (settleAfterEndMs !== null && settleAfterEndMs > 1000)
        problems.push(`settled ${Math.round(settleAfterEndMs)} ms after its socket ended`)
      // Once the network is back, the same unit of work flushes again (unless it committed).
      const finalState = await stateOf(unit.tag, unit.caseNo, unit.counterBefore)
      if (finalState === 'none') {
        const failure = await retryUntilCommitted(unit)
        if (failure !== undefined) problems.push(`the retry failed: ${failure}`)
        else if ((await stateOf(unit.tag, unit.caseNo, unit.counterBefore)) !== 'all')
          problems.push('the retry did not commit')
      }
      cases.push({
        toxic,
        offset,
        outcome,
        committed: finalState === 'all',
        settleAfterEndMs,
        flushMs: settledAt - started,
        ...(settled.ok ? {} : { message: settled.message.slice(0, 300) }),
        ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
      })
    }
  }
  return finish({ bytes: bytes.length, boundaries: boundaries.length, cases })

  /** Closes everything the sweep opened and returns its result. */
  async function finish(run: Omit<SweepResult, 'config'>): Promise<SweepResult> {
    await Promise.all(clients.map((c) => c.end()))
    await proxy.remove().catch(() => {})
    await cut.stop()
    await admin.end({ timeout: 1 })
    await new Promise((resolve) => setTimeout(resolve, 100)) // late events of the closed connections
    const { adminUrl: _a, toxiproxyUrl: _t, ...shown } = cfg
    return { config: shown, ...run }
  }

  /**
   * The reads of the entity manager cut at every offset: `find` of the warm-up's parent row, `load` of
   * one of its children, `wasCommitted` of a flush id never used. Each settles (a `PipeflushError`:
   * CONNECTION_LOST, QUERY_TIMEOUT) within 1 s of its socket's end, and answers right once the fault is
   * gone.
   */
  async function readCases(root: EntityManager, tag: string): Promise<Omit<SweepResult, 'config'>> {
    const [child] = await admin.unsafe<{ id: string }[]>(
      `select id::text as id from ${t('child')} where tag = '${tag}' limit 1`,
    )
    const parentTable = `${cfg.name}_parent`
    const childTable = `${cfg.name}_child`
    const children = [...relationsOf(root.schema, parentTable).values()].find((r) => r.target === childTable)!
    const reads: Record<ReadKind, (em: EntityManager) => Promise<boolean>> = {
      find: async (em) => (await em.find(parentTable, { tag })).length === 1,
      load: async (em) => (await em.load(childTable, child!.id))['tag'] === tag,
      wasCommitted: async (em) => (await em.wasCommitted(randomUUID())) === false,
      // Reads of one tick, in one message: each must get its own answer, or all fail alike.
      batch: async (em) => {
        const settled = await Promise.allSettled([
          em.load(childTable, child!.id),
          em.find(parentTable, { tag }),
          em.find(childTable, { tag }),
        ])
        const failed = settled.find((r) => r.status === 'rejected')
        if (failed?.status === 'rejected') throw failed.reason
        const [one, parents, all] = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
          Entity,
          Entity[],
          Entity[],
        ]
        return one['tag'] === tag && parents.length === 1 && all.length === CHILDREN
      },
      // A graph: the parent, its children (one-to-many) and theirs back to it (many-to-one).
      graph: async (em) => {
        const [parent] = await em.find(parentTable, { tag }, { with: { [children.name]: { parent: true } } })
        const kids = parent?.[children.name] as Entity[] | undefined
        return kids?.length === CHILDREN && kids.every((k) => k['parent'] === parent && k['tag'] === tag)
      },
    }
    const cases: CaseResult[] = []
    let bytes = 0
    let boundaryCount = 0
    for (const read of Object.keys(reads) as ReadKind[]) {
      // The bytes of this read, cut at every message boundary and evenly in between.
      const probe = root.fork({ flushTimeoutMs: SETUP_TIMEOUT_MS })
      await rootFor()
      cut.record()
      await reads[read](probe)
      const recorded = cut.recorded()[cfg.direction]
      const boundaries = phaseBoundaries(
        messages(recorded, { startup: !cfg.warm && cfg.direction === 'upstream' }),
      )
      bytes = Math.max(bytes, recorded.length)
      boundaryCount = Math.max(boundaryCount, boundaries.length)
      const offsets = offsetsFor(recorded.length, boundaries, cfg.offsets, cfg.boundaryCuts)
      for (const toxic of cfg.toxics) {
        for (const offset of offsets) {
          const { client } = await rootFor()
          const em = root.fork()
          const closes = closesOf.get(client)!
          const closedBefore = closes.length
          const started = performance.now()
          const disarm = await arm(toxic, offset, closes)
          const settled = await settleRead(reads[read](em))
          const settledAt = performance.now()
          await disarm()
          const firstEnd = closes.slice(closedBefore).find((at) => at >= started)
          const settleAfterEndMs =
            firstEnd === undefined || firstEnd > settledAt ? null : settledAt - firstEnd
          const problems: string[] = []
          if (settled.ok && !settled.right) problems.push('the read answered wrong')
          if (!settled.ok && !['CONNECTION_LOST', 'QUERY_TIMEOUT'].includes(settled.code)) {
            problems.push(`failed with ${settled.code}: ${settled.message}`)
          }
          if (settleAfterEndMs !== null && settleAfterEndMs > 1000)
            problems.push(`settled ${Math.round(settleAfterEndMs)} ms after its socket ended`)
          // Once the network is back, the same read answers (the pool may take a moment to reconnect:
          // the retry gives it the time a caller would, not the cases' short timeout, which on a loaded
          // machine can end every attempt before a new connection is ready).
          if (!settled.ok) {
            const until = performance.now() + RETRY_FOR_MS
            const retryRead = () => settleRead(reads[read](root.fork({ flushTimeoutMs: SETUP_TIMEOUT_MS })))
            let again = await retryRead()
            while (!again.ok && performance.now() < until) {
              await new Promise((resolve) => setTimeout(resolve, 20))
              again = await retryRead()
            }
            if (!again.ok || !again.right)
              problems.push(`the read failed again: ${again.ok ? 'wrong answer' : again.message}`)
          }
          cases.push({
            toxic,
            read,
            offset,
            outcome: settled.ok ? 'ok' : settled.code,
            committed: false,
            settleAfterEndMs,
            flushMs: settledAt - started,
            ...(settled.ok ? {} : { message: settled.message.slice(0, 300) }),
            ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
          })
        }
      }
    }
    return { bytes, boundaries: boundaryCount, cases }
  }

  /**
   * Flushes the unit of work again until it commits, as a caller would once the network is back (the
   * pool may take a moment to reconnect), asking the flush log after an unknown outcome. Returns why
   * it gave up, if it did.
   */
  async function retryUntilCommitted(unit: {
    em: EntityManager
    root: EntityManager
  }): Promise<string | undefined> {
    const until = performance.now() + RETRY_FOR_MS
    for (;;) {
      const retry = await settle(unit.em.flush())
      if (retry.ok) return undefined
      if (retry.code === 'COMMIT_OUTCOME_UNKNOWN' && (await checker(unit.root).wasCommitted(retry.flushId!)))
        return undefined
      const again = retry.code === 'COMMIT_OUTCOME_UNKNOWN' || isRetryable(retry.code)
      if (!again || performance.now() > until) return `${retry.code} ${retry.message}`
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** Arms `toxic` at `offset`; returns how to remove it (also done at once after the first cut). */
  async function arm(toxic: Toxic, offset: number, closes: readonly number[]): Promise<() => Promise<void>> {
    if (toxic !== 'limit_data') {
      const action: CutAction = toxic === 'reset_peer' ? 'reset' : 'stall'
      cut.arm({ direction: cfg.direction, offset, action, once: true })
      return async () => cut.disarm()
    }
    const name = await proxy.addToxic('limit_data', { bytes: offset }, { stream: cfg.direction, name: 'cut' })
    // Remove it once a connection was cut, so that reconnecting works (as the other toxics do).
    const before = closes.length
    let removed: Promise<void> | undefined
    const remove = () => {
      removed ??= proxy.removeToxic(name)
      return removed
    }
    const watch = setInterval(() => {
      if (closes.length > before) {
        clearInterval(watch)
        void remove()
      }
    }, 2)
    return async () => {
      clearInterval(watch)
      await remove()
    }
  }
}

/** The flush log as a caller asks it after a fault: with time to answer (not the flushes' short timeout). */
function checker(root: EntityManager): EntityManager {
  return root.fork({ flushTimeoutMs: SETUP_TIMEOUT_MS })
}

/** How a read settled: its answer right or not, or its error's code. */
type ReadSettled = { ok: true; right: boolean } | { ok: false; code: string; message: string }

async function settleRead(read: Promise<boolean>): Promise<ReadSettled> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), SETTLE_LIMIT_MS)
  })
  const outcome = await Promise.race([
    read.then(
      (right): ReadSettled => ({ ok: true, right }),
      (e: unknown): ReadSettled => ({
        ok: false,
        code: isPipeflushError(e)
          ? e.code
          : `not a PipeflushError (${String((e as { code?: unknown })?.code)})`,
        message: String((e as Error)?.message ?? e),
      }),
    ),
    hang,
  ])
  clearTimeout(timer)
  if (outcome === 'hang') {
    read.catch(() => {})
    return { ok: false, code: 'hang', message: `did not settle within ${SETTLE_LIMIT_MS} ms` }
  }
  return outcome
}

/** How a flush settled. */
type Settled =
  | { ok: true; report: FlushReport }
  | { ok: false; code: string; flushId: string | undefined; pipeflush: boolean; message: string }

async function settle(flush: Promise<FlushReport>): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), SETTLE_LIMIT_MS)
  })
  const outcome = await Promise.race([
    flush.then(
      (report): Settled => ({ ok: true, report }),
      (e: unknown): Settled => ({
        ok: false,
        code: isPipeflushError(e)
          ? e.code
          : String((e as { code?: unknown })?.code ?? 'not a PipeflushError'),
        flushId: isPipeflushError(e) ? e.flushId : undefined,
        pipeflush: isPipeflushError(e),
        message: String((e as Error)?.message ?? e),
      }),
    ),
    hang,
  ])
  clearTimeout(timer)
  if (outcome === 'hang') {
    flush.catch(() => {})
    return { ok: false, code: 'hang', flushId: undefined, pipeflush: true, message: 'did not settle' }
  }
  return outcome
}

/**
 * The message boundaries where the protocol changes phase: where the message type changes, and the
 * first and last message of a run of one type (a run of data rows is one phase).
 */
function phaseBoundaries(framed: readonly { readonly type: number; readonly end: number }[]): number[] {
  const out: number[] = []
  let runStart = 0
  for (let i = 0; i <= framed.length; i++) {
    if (i < framed.length && framed[i]!.type === framed[runStart]!.type) continue
    // A run of messages of one type: every boundary of a short run, the first and last of a long one.
    const run = framed.slice(runStart, i)
    const kept = run.length <= 8 ? run : [run[0]!, run[run.length - 1]!]
    for (const m of kept) out.push(m.end)
    runStart = i
  }
  return out
}

/**
 * Phase boundaries (a cut there and one byte past it; at most `cuts` of them, spread over all), and
 * `even` offsets spread from 0 to past the end of the bytes (the later cases of a sweep send slightly
 * more: larger ids).
 */
function offsetsFor(total: number, boundaries: readonly number[], even: number, cuts: number): number[] {
  const set = new Set<number>([0, 1])
  const step = Math.max(1, boundaries.length / cuts)
  for (let i = 0; i < boundaries.length; i += step) {
    const b = boundaries[Math.floor(i)]!
    set.add(b)
    set.add(b + 1)
  }
  const end = Math.round(total * 1.15) + 64
  for (let i = 0; i < even; i++) set.add(Math.round((end * i) / (even - 1)))
  return [...set].sort((a, b) => a - b)
}

/** The counter's sockets, with the time each one closes recorded in `closes`. */
function trackCloses(counter: RoundTripCounter, closes: number[], open: Set<Socket>): RoundTripCounter {
  const record = (s: Socket) => {
    open.add(s)
    s.once('close', () => {
      open.delete(s)
      closes.push(performance.now())
    })
  }
  return {
    ...counter,
    socket: async (o) => {
      const s = await counter.socket(o)
      record(s)
      return s
    },
    stream: () => {
      const s = counter.stream()
      record(s)
      return s
    },
  }
}
