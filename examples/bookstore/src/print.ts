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
 * `report≠socket` if the socket counted otherwise) and time, request round trips and time.
 *
 * @example
 * console.log(formatComparison(new Map([['burst', burstSteps], ['off', offSteps]])))
 */
export function formatComparison(byMode: ReadonlyMap<string, readonly MeteredStep[]>): string {
  const modes = [...byMode.keys()]
  const steps = byMode.get(modes[0]!) ?? []
  const header = [
    'request',
    ...modes.flatMap((m) => [`${m}: flush rt`, 'flush ms', 'request rt', 'request ms']),
  ]
  const rows = steps.map((s, i) => [
    `${s.method} ${s.path}`,
    ...modes.flatMap((m) => {
      const r = byMode.get(m)?.[i]
      const flushMs = (r?.flush?.durationMs ?? 0).toFixed(1)
      return [flushTrips(r), flushMs, r?.roundTrips ?? '', (r?.ms ?? 0).toFixed(1)]
    }),
  ])
  return formatTable(header, rows)
}

function flushTrips(step: MeteredStep | undefined): string | number {
  const reported = step?.flush?.roundTrips ?? 0
  const socket = step?.metered?.socketRoundTrips
  return socket === undefined || socket === reported ? reported : `${reported}≠${socket}`
}
