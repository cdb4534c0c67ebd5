/** Summary statistics of a list of durations in milliseconds. */
export interface Summary {
  readonly samples: number
  readonly medianMs: number
  readonly p95Ms: number
  readonly p99Ms: number
  readonly meanMs: number
  readonly minMs: number
  readonly maxMs: number
}

/**
 * The `p`-th percentile (0..100) of ascending `sorted` values, linearly interpolated between the two
 * nearest ranks (the same definition as numpy's default and tinybench's p50/p75/p99).
 *
 * @example
 * percentile([1, 2, 3, 4], 50) // 2.5
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = (p / 100) * (sorted.length - 1)
  const lo = Math.floor(rank)
  const hi = Math.ceil(rank)
  const a = sorted[lo] ?? Number.NaN
  const b = sorted[hi] ?? Number.NaN
  return a + (b - a) * (rank - lo)
}

/** Median, p95, p99, mean, min and max of `values` (in any order). Throws on an empty list. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new RangeError('summarize: no samples')
  const sorted = [...values].sort((a, b) => a - b)
  return {
    samples: sorted.length,
    medianMs: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    meanMs: sorted.reduce((s, v) => s + v, 0) / sorted.length,
    minMs: sorted[0] ?? Number.NaN,
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  }
}

/** Arithmetic mean, NaN for an empty list. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((s, v) => s + v, 0) / values.length
}

/** Rounds to `digits` decimals (for JSON output; keeps integers as they are). */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

/**
 * The timing fields every timed row of the report carries, from its summary and the RTT it is
 * measured against: milliseconds rounded, and the median, p95 and p99 in RTTs (two decimals).
 *
 * @example
 * timedFields(summarize([20, 22, 40]), 20) // { medianMs: 22, ..., rttMs: 20, p50Rtt: 1.1, ... }
 */
export function timedFields(s: Summary, rttMs: number) {
  const inRtt = (ms: number) => round(ms / rttMs, 2)
  return {
    medianMs: round(s.medianMs),
    p95Ms: round(s.p95Ms),
    p99Ms: round(s.p99Ms),
    meanMs: round(s.meanMs),
    minMs: round(s.minMs),
    maxMs: round(s.maxMs),
    samples: s.samples,
    rttMs: round(rttMs),
    p50Rtt: inRtt(s.medianMs),
    p95Rtt: inRtt(s.p95Ms),
    p99Rtt: inRtt(s.p99Ms),
  }
}
