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
 * Requests side by side, one column group per mode: flush round trips (the report's, shown as
 * `report≠socket` if the socket counted otherwise) and time, request round trips and time, and the
 * request's time in RTTs (`rttMs`, a `select 1` through the proxy) when given.
 *
 * @example
 * console.log(formatComparison(new Map([['burst', burstSteps], ['off', offSteps]]), 20.8))
 */
export function formatComparison(
  byMode: ReadonlyMap<string, readonly MeteredStep[]>,
  rttMs?: number,
): string {
  const modes = [...byMode.keys()]
  const steps = byMode.get(modes[0]!) ?? []
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
      const r = byMode.get(m)?.[i]
      const flushMs = (r?.flush?.durationMs ?? 0).toFixed(1)
      const ms = r?.ms ?? 0
      const inRtt = perRtt ? [(ms / rttMs).toFixed(2)] : []
      return [flushTrips(r), flushMs, r?.roundTrips ?? '', ms.toFixed(1), ...inRtt]
    }),
  ])
  return formatTable(header, rows)
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
