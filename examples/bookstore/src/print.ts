import { formatTable } from '@pipeflush/example-support'
import { describeFlush } from '@pipeflush/kysely'
import type { StepResult } from './script.ts'

/** The lines printed for one request: what it did, its flush, its round trips. */
export function formatStep(step: StepResult): string {
  const head = `${step.method.padEnd(6)} ${step.path.padEnd(12)} -> ${step.status}`
  const lines = [head, ...step.did.map((d) => `         ${d}`)]
  if (step.error) lines.push(`         error: ${step.error}`)
  if (step.flush) lines.push(`         flush  ${describeFlush(step.flush)}`)
  const n = step.roundTrips
  const trips = n === undefined ? '' : `, ${n} round trip${n === 1 ? '' : 's'} in all (reads + flush)`
  lines.push(`         request ${step.ms.toFixed(1)} ms${trips}`)
  return lines.join('\n')
}

/** Requests side by side, one column pair per mode: flush round trips and time, request time. */
export function formatComparison(byMode: ReadonlyMap<string, readonly StepResult[]>): string {
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
      return [r?.flush?.roundTrips ?? 0, flushMs, r?.roundTrips ?? '', (r?.ms ?? 0).toFixed(1)]
    }),
  ])
  return formatTable(header, rows)
}
