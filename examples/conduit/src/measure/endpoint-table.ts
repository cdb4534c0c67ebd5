import { formatTable } from '@pipeflush/example-support'
import type { MeasuredRun } from './measure-suite.ts'

/** The measured runs of one configuration (`pipeflush (burst)`, `plain Kysely`). */
export interface MeasuredConfiguration {
  /** Short label for the columns: `burst`, `off`, `Kysely`. */
  readonly label: string
  readonly runs: readonly MeasuredRun[]
}

/**
 * The round trips a request should take once the read API has what it lacks: a read (a GET, a login)
 * 1, a write 2 (one batch of reads, one flush), a register 1 (it reads nothing).
 */
export function targetRoundTrips(route: string): number {
  if (route === 'POST /api/users' || route === 'POST /api/users/login') return 1
  return route.startsWith('GET ') ? 1 : 2
}

/**
 * The suite's requests side by side, one group of columns per configuration: round trips as counted
 * at the socket (one number when every run counted the same, else the range), for pipeflush its
 * flush's share (the report's; `report≠socket` if the socket counted otherwise), and the median time
 * in RTTs (`rttMs`: a `select 1` through the proxy). `target` shows what a request should take where
 * pipeflush takes more today. The last line sums the suite.
 *
 * @example
 * console.log(formatEndpointTable([burst, off, kysely], 20.9))
 */
export function formatEndpointTable(configs: readonly MeasuredConfiguration[], rttMs: number): string {
  const first = configs[0]?.runs[0]?.samples ?? []
  const header = [
    'request',
    'endpoint',
    ...configs.flatMap((c, i) => [
      `${c.label} rt`,
      ...(hasFlushes(c) ? [`${c.label} flush`] : []),
      ...(i === 0 ? ['target'] : []),
      `${c.label} RTT`,
    ]),
  ]
  const rows = first.map((sample, i) => [
    sample.name,
    sample.route.replace(' /api/', ' /'),
    ...configs.flatMap((c, ci) => {
      const samples = c.runs.map((r) => r.samples[i]).filter((s) => s !== undefined)
      const trips = samples.map((s) => s.roundTrips)
      const flush = hasFlushes(c) ? [spread(samples.map((s) => flushCell(s.flush)))] : []
      const target = targetRoundTrips(sample.route)
      const over = ci === 0 ? [Math.max(...trips) > target ? target : ''] : []
      return [spread(trips), ...flush, ...over, (median(samples.map((s) => s.ms)) / rttMs).toFixed(2)]
    }),
  ])
  const total = [
    'all 32 requests',
    '',
    ...configs.flatMap((c, ci) => {
      const sums = c.runs.map((r) => r.samples.reduce((n, s) => n + s.roundTrips, 0))
      const flushes = c.runs.map((r) => r.samples.reduce((n, s) => n + (s.flush?.roundTrips ?? 0), 0))
      const ms = median(c.runs.map((r) => r.samples.reduce((n, s) => n + s.ms, 0)))
      return [
        spread(sums),
        ...(hasFlushes(c) ? [spread(flushes)] : []),
        ...(ci === 0 ? [''] : []),
        (ms / rttMs).toFixed(1),
      ]
    }),
  ]
  return formatTable(header, [...rows, total])
}

function hasFlushes(config: MeasuredConfiguration): boolean {
  return config.runs.some((r) => r.samples.some((s) => s.flush !== undefined))
}

function flushCell(flush: { roundTrips: number; socket: number | undefined } | undefined): string | number {
  if (flush === undefined) return ''
  return flush.socket === undefined || flush.socket === flush.roundTrips
    ? flush.roundTrips
    : `${flush.roundTrips}≠${flush.socket}`
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
function median(values: readonly number[]): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** One value when all are the same, else `min-max` (numbers) or the distinct values joined. */
function spread(values: readonly (string | number)[]): string | number {
  const distinct = [...new Set(values)]
  if (distinct.length <= 1) return distinct[0] ?? ''
  if (distinct.every((v) => typeof v === 'number'))
    return `${Math.min(...(distinct as number[]))}-${Math.max(...(distinct as number[]))}`
  return distinct.join('/')
}
