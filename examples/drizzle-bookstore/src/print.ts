import { formatTable } from '@pipeflush/example-support'
import type { Measured } from './measure.ts'

/**
 * The script's requests side by side, a column group per configuration (`burst`, `off`: pipeflush
 * in that pipeline mode; `Drizzle`: Drizzle alone): round trips at the socket (`rt`), of which the
 * flush (pipeflush's, as its report says), and the request's time in RTTs (`rttMs`), the median of
 * the runs. Round trips that differ between runs are shown as their range.
 *
 * @example
 * console.log(printTable(new Map([['burst', runs], ['Drizzle', drizzleRuns]]), 21.3))
 */
export function printTable(
  columns: ReadonlyMap<string, readonly (readonly Measured[])[]>,
  rttMs: number,
): string {
  const labels = [...columns.keys()]
  const [first] = [...columns.values()]
  const steps = first?.[0] ?? []
  const header = ['request', 'route']
  for (const label of labels) {
    header.push(`${label} rt`)
    if (label !== 'Drizzle') header.push(`${label} flush`)
    header.push(`${label} RTT`)
  }
  const totals = labels.map(() => ({ rt: 0, flush: 0, rtt: 0 }))
  const rows = steps.map((step, i) => {
    const row: (string | number)[] = [step.step.name, step.step.route]
    labels.forEach((label, c) => {
      const runs = columns.get(label)!.map((run) => run[i]!)
      const trips = runs.map((m) => m.roundTrips)
      const rtt = median(runs.map((m) => m.ms)) / rttMs
      row.push(range(trips))
      if (label !== 'Drizzle') row.push(range(runs.map((m) => m.flush?.reported ?? 0)))
      row.push(rtt.toFixed(2))
      totals[c]!.rt += trips[0]!
      totals[c]!.flush += runs[0]!.flush?.reported ?? 0
      totals[c]!.rtt += rtt
    })
    return row
  })
  const total: (string | number)[] = [`all ${steps.length} requests`, '']
  labels.forEach((label, c) => {
    total.push(totals[c]!.rt)
    if (label !== 'Drizzle') total.push(totals[c]!.flush)
    total.push(totals[c]!.rtt.toFixed(2))
  })
  return formatTable(header, [...rows, total])
}

function range(values: readonly number[]): string | number {
  const min = Math.min(...values)
  const max = Math.max(...values)
  return min === max ? min : `${min}-${max}`
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
