import { generateUnits } from '../realistic/generate.ts'
import type { RealisticSeries, UnitRunner } from '../realistic/runner.ts'
import { rowsWritten, tablesWritten, type Unit } from '../realistic/unit.ts'
import type { LibraryReport, Target } from '../series/types.ts'
import type { ConnectionCount } from './connection-counter.ts'
import { clientCpuMs } from './cpu.ts'

/** How the realistic workload is run. */
export interface RealisticOptions {
  /** Fresh clients (cold pools), each replaying `units` units of work on a freshly seeded shop. */
  readonly runs: number
  readonly units: number
  /** Connections each client may open. */
  readonly pool: number
  /** Units flushed at the same time: 1 (in sequence) or 4 (four at a time). */
  readonly concurrency: number
  /** Seed of the first run's units (run r uses seed + r). */
  readonly seed: number
}

/** One flush of the realistic workload. */
export interface RealisticFlush {
  readonly kind: string
  readonly wallMs: number
  readonly report: LibraryReport | undefined
  readonly tables: number
  readonly rows: number
  /** The flush was in the first round of its run (the pool was cold). */
  readonly first: boolean
}

/** What the runs measured. */
export interface RealisticMeasurement {
  readonly flushes: readonly RealisticFlush[]
  /**
   * Round trips per flush at the socket: in sequence, each flush's exactly; four at a time, each
   * connection's count in each round (a connection may carry two flushes of a round one after the other).
   */
  readonly socketRoundTrips: readonly number[]
  /** Every round trip counted at the sockets while flushes ran. */
  readonly socketTotal: number
  /**
   * Round trips of connections the pool opened while flushes ran that no report checks: opened for a
   * reservation another connection served first (pipeflush series only; 0 in sequence).
   */
  readonly unclaimedOpenings: number
  /**
   * Flushes whose report differs from the socket: in sequence, compared one by one; four at a time,
   * every flush of a round whose reports (opening a connection apart) do not sum to its sockets' count.
   */
  readonly mismatches: number
  /** Rounds of four whose reports do not sum to the sockets' count. */
  readonly mismatchedRounds: number
  /** Client CPU per flush over the flushes (not the reads), ms. */
  readonly cpuMs: number
}

interface Tally {
  readonly flushes: RealisticFlush[]
  readonly socket: number[]
  socketTotal: number
  unclaimedOpenings: number
  mismatches: number
  mismatchedRounds: number
  cpuMs: number
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)

/** How a round's reports compare with its sockets. */
export interface RoundCheck {
  /** Flushes whose report differs (every flush of a round of several whose sums differ). */
  readonly mismatches: number
  /** Round trips of connections opened meanwhile that no report checks. */
  readonly unclaimedOpenings: number
}

/**
 * Checks a round's reports against its connections' counts. One flush: its report against the socket,
 * exactly. Several: the round trips of using connections (all but those that opened them) against the
 * reports' (their `connectRoundTrips` apart), and the openings the reports claim against those seen.
 *
 * @example
 * checkRound([{ roundTrips: 3, connectRoundTrips: 2 }, { roundTrips: 1, connectRoundTrips: 0 }],
 *   [{ roundTrips: 3, opening: 2 }, { roundTrips: 1, opening: 0 }, { roundTrips: 2, opening: 2 }])
 * // { mismatches: 0, unclaimedOpenings: 2 }
 */
export function checkRound(
  reports: readonly Pick<LibraryReport, 'roundTrips' | 'connectRoundTrips'>[],
  counts: readonly ConnectionCount[],
): RoundCheck {
  const total = sum(counts.map((c) => c.roundTrips))
  if (reports.length === 1)
    return { mismatches: reports[0]?.roundTrips === total ? 0 : 1, unclaimedOpenings: 0 }
  const opening = sum(counts.map((c) => c.opening))
  const claimed = sum(reports.map((r) => r.connectRoundTrips))
  const use = sum(reports.map((r) => r.roundTrips)) - claimed
  if (use !== total - opening || claimed > opening)
    return { mismatches: reports.length, unclaimedOpenings: 0 }
  return { mismatches: 0, unclaimedOpenings: opening - claimed }
}

/** One round: its units prepared together (reads, changes), then flushed together, counted per connection. */
async function round(runner: UnitRunner, units: readonly Unit[], first: boolean, t: Tally): Promise<void> {
  const prepared = await Promise.all(units.map((u) => runner.prepare(u)))
  runner.counter.reset()
  const cpu0 = clientCpuMs()
  const results = await Promise.all(
    prepared.map(async (flush) => {
      const t0 = performance.now()
      const report = await flush()
      return { report, wallMs: performance.now() - t0 }
    }),
  )
  t.cpuMs += clientCpuMs() - cpu0
  const counts = runner.counter.perConnection().filter((c) => c.roundTrips > 0)
  t.socketTotal += sum(counts.map((c) => c.roundTrips))
  t.socket.push(
    ...(units.length === 1 ? [sum(counts.map((c) => c.roundTrips))] : counts.map((c) => c.roundTrips)),
  )
  const reports = results.flatMap((r) => (r.report ? [r.report] : []))
  if (reports.length > 0) {
    const c = checkRound(reports, counts)
    t.mismatches += c.mismatches
    t.unclaimedOpenings += c.unclaimedOpenings
    if (c.mismatches > 0 && reports.length > 1) t.mismatchedRounds++
  }
  results.forEach((r, i) => {
    const unit = units[i] as Unit
    t.flushes.push({
      kind: unit.kind,
      wallMs: r.wallMs,
      report: r.report,
      tables: tablesWritten(unit).size,
      rows: rowsWritten(unit),
      first,
    })
  })
}

/**
 * The realistic workload on `series`: `runs` times, the shop is reseeded (`reset`), a fresh client
 * opens (a cold pool of `pool`), and it replays `units` generated units of work, `concurrency` at a
 * time: each round's units read and change rows together, then flush together. Each flush is timed
 * and its socket round trips compared with its report.
 *
 * @example
 * const m = await measureRealistic(series, target, () => env.resetShop(), { runs: 3, units: 40, pool: 10, concurrency: 4, seed: 1 })
 */
export async function measureRealistic(
  series: RealisticSeries,
  target: Target,
  reset: () => Promise<void>,
  options: RealisticOptions,
): Promise<RealisticMeasurement> {
  const t: Tally = {
    flushes: [],
    socket: [],
    socketTotal: 0,
    unclaimedOpenings: 0,
    mismatches: 0,
    mismatchedRounds: 0,
    cpuMs: 0,
  }
  for (let run = 0; run < options.runs; run++) {
    const units = generateUnits(options.seed + run, options.units)
    await reset()
    const runner = await series.open(target, options.pool)
    try {
      for (let i = 0; i < units.length; i += options.concurrency)
        await round(runner, units.slice(i, i + options.concurrency), i === 0, t)
    } finally {
      await runner.close()
    }
  }
  return {
    flushes: t.flushes,
    socketRoundTrips: t.socket,
    socketTotal: t.socketTotal,
    unclaimedOpenings: t.unclaimedOpenings,
    mismatches: t.mismatches,
    mismatchedRounds: t.mismatchedRounds,
    cpuMs: t.cpuMs / Math.max(1, t.flushes.length),
  }
}
