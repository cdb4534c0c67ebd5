import type { Series, SeriesClient, Target } from '../series/types.ts'
import { mean, percentile, type Summary, summarize } from '../stats.ts'
import type { Work } from '../workload.ts'
import { type BackendCpu, backendCpu, clientCpuMs } from './cpu.ts'

/** How many flushes the side-by-side CPU measurement takes of each series. */
export interface CpuTiming {
  /** Timed flushes per series. */
  readonly flushes: number
  /** Flushes per series in a row before the next series takes its turn. */
  readonly chunk: number
  /** Untimed flushes per series first (the cold one included). */
  readonly warmup: number
}

/** What one series measured side by side with the others. */
export interface CpuMeasurement extends Summary {
  /** Client CPU per flush, ms (`process.cpuUsage`, user + system, over the timed flushes / their number). */
  readonly cpuMs: number
  /** Median and p95 of the client CPU of each timed flush, ms (`process.cpuUsage` around each `flush`). */
  readonly cpuP50Ms: number
  readonly cpuP95Ms: number
  /** Spans recorded per timed flush, for the series that set a tracer provider for their turn. */
  readonly spansPerFlush: number | undefined
  /** Server backend CPU per flush, ms, where /proc can be read. */
  readonly serverCpuMs: number | undefined
  readonly roundTrips: number
  readonly reportedRoundTrips: number | undefined
  readonly reportMismatches: number | undefined
  readonly idFetches: number | undefined
}

interface Tally {
  readonly client: SeriesClient
  readonly server: BackendCpu | undefined
  readonly walls: number[]
  readonly trips: number[]
  readonly reported: number[]
  /** Client CPU of each timed flush, ms. */
  readonly cpus: number[]
  cpuMs: number
  /** Spans recorded in the timed turns (undefined: the series records none). */
  spans: number | undefined
  serverMs: number
  mismatches: number
  idFetches: number
}

/** Runs `fn` in a turn of `client`: its `beginTurn` first, its `endTurn` after; returns `endTurn`'s spans. */
async function turn(client: SeriesClient, fn: () => Promise<void>): Promise<number | undefined> {
  client.beginTurn?.()
  let spans: number | undefined
  try {
    await fn()
  } finally {
    spans = client.endTurn?.()
  }
  return spans
}

/** `n` timed flushes of one series, added to its tally. */
async function chunk(t: Tally, work: Work, n: number): Promise<void> {
  const spans = await turn(t.client, async () => {
    const server0 = t.server?.read()
    const cpu0 = clientCpuMs()
    let preparing = 0
    for (let i = 0; i < n; i++) {
      if (work.shop && t.client.prepare) {
        // The shop cells: the unit is made (rows loaded, changed, or its statements planned) untimed.
        const p0 = clientCpuMs()
        await t.client.prepare(work)
        preparing += clientCpuMs() - p0
      }
      t.client.counter.reset()
      const c0 = clientCpuMs()
      const w0 = performance.now()
      await t.client.flush(work)
      t.walls.push(performance.now() - w0)
      t.cpus.push(clientCpuMs() - c0)
      const trips = t.client.counter.read().roundTrips
      t.trips.push(trips)
      const report = t.client.lastReport?.()
      if (report) {
        t.reported.push(report.roundTrips)
        if (report.roundTrips !== trips) t.mismatches++
        if (report.idFetch) t.idFetches++
      }
    }
    t.cpuMs += clientCpuMs() - cpu0 - preparing
    if (t.server && server0 !== undefined) t.serverMs += t.server.read() - server0
  })
  if (spans !== undefined) t.spans = (t.spans ?? 0) + spans
}

/**
 * Client CPU per flush of several series measured side by side in one process: each opens a client
 * (one connection) and warms up, then they take turns, `chunk` flushes each, until every series has
 * done `flushes` timed flushes, so a drift of the machine hits them alike. A series' warm-up and each
 * of its chunks run between its client's `beginTurn` and `endTurn` (the traced series set their tracer
 * provider globally there, outside the timed flushes). Client CPU is read over each chunk (the mean per
 * flush) and around each flush (its median and p95). For a shop cell (`work.shop`), each flush is
 * preceded by the client's untimed `prepare` (its CPU taken out of the mean). A series that fails to
 * open or flush gets its error instead of numbers; the others go on.
 *
 * @example
 * const byId = await measureCpuSideBySide(series, target, matrixWork(10, 1), { flushes: 1500, chunk: 100, warmup: 50 })
 */
export async function measureCpuSideBySide(
  series: readonly Series[],
  target: Target,
  work: Work,
  timing: CpuTiming,
): Promise<Map<string, CpuMeasurement | Error>> {
  const out = new Map<string, CpuMeasurement | Error>()
  const tallies = new Map<string, Tally>()
  try {
    for (const s of series) {
      try {
        const client = await s.open(target, { pool: 1 })
        const tally: Tally = {
          client,
          // Not for the shop cells: their untimed preparation runs on the server too.
          server: work.shop ? undefined : await backendCpu(client.query),
          walls: [],
          trips: [],
          reported: [],
          cpus: [],
          cpuMs: 0,
          spans: undefined,
          serverMs: 0,
          mismatches: 0,
          idFetches: 0,
        }
        tallies.set(s.id, tally)
        await turn(client, async () => {
          for (let i = 0; i < Math.max(1, timing.warmup); i++) {
            if (work.shop) await client.prepare?.(work)
            await client.flush(work)
          }
        })
      } catch (e) {
        out.set(s.id, e instanceof Error ? e : new Error(String(e)))
      }
    }
    const rounds = Math.ceil(timing.flushes / timing.chunk)
    for (let r = 0; r < rounds; r++) {
      const n = Math.min(timing.chunk, timing.flushes - r * timing.chunk)
      const ids = [...tallies.keys()]
      const turn = [...ids.slice(r % ids.length), ...ids.slice(0, r % ids.length)]
      for (const id of turn) {
        const t = tallies.get(id)
        if (!t || out.has(id)) continue
        try {
          await chunk(t, work, n)
        } catch (e) {
          out.set(id, e instanceof Error ? e : new Error(String(e)))
        }
      }
    }
    for (const [id, t] of tallies) {
      if (out.has(id)) continue
      const n = t.walls.length
      const hasReport = t.reported.length > 0
      const sortedCpus = [...t.cpus].sort((a, b) => a - b)
      out.set(id, {
        ...summarize(t.walls),
        cpuMs: t.cpuMs / n,
        cpuP50Ms: percentile(sortedCpus, 50),
        cpuP95Ms: percentile(sortedCpus, 95),
        spansPerFlush: t.spans === undefined ? undefined : t.spans / n,
        serverCpuMs: t.server ? t.serverMs / n : undefined,
        roundTrips: mean(t.trips),
        reportedRoundTrips: hasReport ? mean(t.reported) : undefined,
        reportMismatches: hasReport ? t.mismatches : undefined,
        idFetches: hasReport ? t.idFetches : undefined,
      })
    }
    return out
  } finally {
    await Promise.all([...tallies.values()].map((t) => t.client.close().catch(() => {})))
  }
}
