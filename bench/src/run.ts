import type { BenchEnv } from './env/services.ts'
import { type LatencyGroup, type Step, stepSeriesIds } from './matrix.ts'
import { measureRtt } from './measure/rtt.ts'
import { measureStep, missingRows } from './measure-step.ts'
import type { BenchOptions } from './options.ts'
import type { ResultRow, RttRow } from './results.ts'
import { round } from './stats.ts'

/** Where a run reports its progress. */
export interface RunListener {
  /** Before each step: `done` steps finished out of `total`. */
  step(done: number, total: number, step: Step | undefined): void
  log(line: string): void
}

/**
 * Runs every step of `plan` and returns the rows and RTTs; a failing step becomes `failed` rows, a
 * series that cannot run here (`unavailable`, by series id) `unavailable` rows.
 */
export async function runPlan(
  plan: readonly LatencyGroup[],
  env: BenchEnv,
  options: BenchOptions,
  unavailable: ReadonlyMap<string, string>,
  listener: RunListener,
): Promise<{ results: ResultRow[]; rtt: RttRow[] }> {
  const total = plan.reduce((n, g) => n + g.steps.length, 0)
  const results: ResultRow[] = []
  const rtt: RttRow[] = []
  let done = 0
  for (const group of plan) {
    await env.proxy.setLatency(group.latencyMs)
    const r = await measureRtt(env.target, options.rttSamples)
    rtt.push({
      latencyMs: group.latencyMs,
      medianMs: round(r.medianMs),
      p95Ms: round(r.p95Ms),
      samples: r.samples,
      roundTrips: r.roundTrips,
    })
    listener.log(`latency ${group.latencyMs} ms: select 1 median ${r.medianMs.toFixed(2)} ms`)
    for (const step of group.steps) {
      listener.step(done, total, step)
      const ids = stepSeriesIds(step)
      const reason = ids.every((id) => unavailable.has(id)) ? unavailable.get(ids[0] ?? '') : undefined
      if (reason) results.push(...missingRows(step, 'unavailable', reason, r.medianMs))
      else {
        try {
          results.push(
            ...(await withTimeout(
              measureStep(step, env, options, r.medianMs, unavailable),
              stepTimeout(step, options),
            )),
          )
        } catch (e) {
          const message = e instanceof Error ? (e.message.split('\n')[0] ?? 'failed') : String(e)
          listener.log(`${ids.join(', ')} failed: ${message}`)
          results.push(...missingRows(step, 'failed', message, r.medianMs))
        }
        await env.truncate()
      }
      done++
    }
  }
  return { results, rtt }
}

/** Rejects when `promise` has not settled after `ms` (the measurement is abandoned, not cancelled). */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true
      reject(new Error(`no result after ${ms / 1000} s (a flush never settled?)`))
    }, ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Whether a measurement was abandoned: its client may still hold connections open. */
export let timedOut = false

/**
 * How long `step` may run: `stepTimeoutMs`, or for a CPU step as long as its flushes need at 20 ms each
 * (every series' warm-up and timed flushes; a shop cell's unit inserts its own rows first).
 */
function stepTimeout(step: Step, options: BenchOptions): number {
  if (step.scenario !== 'cpu') return options.stepTimeoutMs
  const flushes = (options.cpuWarmup + options.cpuFlushes) * step.series.length
  return Math.max(options.stepTimeoutMs, flushes * 20)
}
