import { describeSocketCheck, formatTable, type MeteredFlush } from '@pipeflush/example-support'
import { describeFlush } from '@pipeflush/kysely'
import type { StepResult } from './script.ts'

/** A request's result with its flush as the socket counted it (see `FlushMeter`). */
export interface MeteredStep extends StepResult {
  readonly metered: MeteredFlush | undefined
}

/**
 * The lines printed for one request: what it did, its flush report (checked against the socket), its
 * round trips.
 *
 * @example
 * console.log(formatStep({ ...step, metered: meter.of(step.flush) }))
 */
export function formatStep(step: MeteredStep): string {
  const head = `${step.method.padEnd(6)} ${step.path.padEnd(12)} -> ${step.status}`
  const lines = [head, ...step.did.map((d) => `         ${d}`)]
  if (step.error) lines.push(`         error: ${step.error}`)
  if (step.flush)
    lines.push(`         flush  ${describeFlush(step.flush)}; ${describeSocketCheck(step.metered)}`)
  const n = step.roundTrips
  const trips = n === undefined ? '' : `, ${n} round trip${n === 1 ? '' : 's'} in all (reads + flush)`
  lines.push(`         request ${step.ms.toFixed(1)} ms${trips}`)
  return lines.join('\n')
}

/**
 * Requests side by side, one column group per mode, each request over the runs of its mode (`runs`:
 * the steps of each run, in the script's order): flush round trips (the report's, shown as
 * `report≠socket` if the socket counted otherwise) and the median flush time, request round trips and
 * the median request time, and that time in RTTs (`rttMs`, a `select 1` through the proxy) when given.
 * Round trips are counted, not sampled: one number when every run counted the same, else the range
 * (`1-2`: a run whose flush fetched ids first).
 *
 * @example
 * console.log(formatComparison(new Map([['burst', [burstRun1, burstRun2]], ['off', [offRun1]]]), 20.8))
 */
export function formatComparison(
  byMode: ReadonlyMap<string, readonly (readonly MeteredStep[])[]>,
  rttMs?: number,
): string {
  const modes = [...byMode.keys()]
  const steps = byMode.get(modes[0]!)?.[0] ?? []
  const perRtt = rttMs !== undefined && rttMs > 0
  const header = [
    'request',
    ...modes.flatMap((m) => [
      `${m}: flush rt`,
      'flush ms',
      'request rt',
      'request ms',
      ...(perRtt ? ['request RTT'] : []),
    ]),
  ]
  const rows = steps.map((s, i) => [
    `${s.method} ${s.path}`,
    ...modes.flatMap((m) => {
      const runs = (byMode.get(m) ?? []).map((run) => run[i]).filter((r) => r !== undefined)
      const flushMs = median(runs.map((r) => r.flush?.durationMs ?? 0)).toFixed(1)
      const ms = median(runs.map((r) => r.ms))
      const inRtt = perRtt ? [(ms / rttMs).toFixed(2)] : []
      const requestTrips = spread(runs.map((r) => r.roundTrips ?? ''))
      return [spread(runs.map(flushTrips)), flushMs, requestTrips, ms.toFixed(1), ...inRtt]
    }),
  ])
  return formatTable(header, rows)
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

/**
 * The round trip time through the proxy: the median of `samples` `select 1` on a connection opened
 * first (its opening not counted), in ms.
 *
 * @example
 * const rttMs = await measureRtt(admin.query) // about 20.8 at --latency 20
 */
export async function measureRtt(query: (text: string) => Promise<unknown>, samples = 9): Promise<number> {
  await query('select 1')
  const times: number[] = []
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now()
    await query('select 1')
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

function flushTrips(step: MeteredStep | undefined): string | number {
  const reported = step?.flush?.roundTrips ?? 0
  const socket = step?.metered?.socketRoundTrips
  return socket === undefined || socket === reported ? reported : `${reported}≠${socket}`
}
