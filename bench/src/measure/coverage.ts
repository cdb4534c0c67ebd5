import type { Session } from 'node:inspector/promises'

interface FunctionCoverage {
  readonly functionName: string
  readonly ranges: readonly { readonly startOffset: number; readonly count: number }[]
}

interface ScriptCoverage {
  readonly url: string
  readonly functions: readonly FunctionCoverage[]
}

/**
 * Calls per named function of pipeflush's core (`name (file)`) since the last take, from V8's
 * precise coverage (started with `Profiler.startPreciseCoverage({ callCount: true })` on `session`):
 * each take resets the counts.
 *
 * @example
 * await take(session) // counts start now
 * await em.flush()
 * const calls = await take(session) // Map { 'flushUnitOfWork (flush/flush-unit-of-work.ts)' => 1, ... }
 */
export async function take(session: Session): Promise<Map<string, number>> {
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] }
  const out = new Map<string, number>()
  for (const script of result) {
    if (!script.url.includes('/packages/core/src/')) continue
    const file = script.url.replace(/^.*\/packages\/core\/src\//, '')
    for (const f of script.functions) {
      const count = f.ranges[0]?.count ?? 0
      if (count === 0 || f.functionName === '') continue
      out.set(`${f.functionName} (${file})`, count)
    }
  }
  return out
}

/**
 * What `calls` (summed over `runs` runs of one operation) say per run: how many functions every run
 * ran, how many some run ran, the calls a run made, and each function's calls a run, most first.
 */
export function footprint(
  calls: ReadonlyMap<string, number>,
  runs: number,
): { every: number; some: number; calls: number; list: (readonly [string, number])[] } {
  const list = [...calls].map(([name, count]) => [name, count / runs] as const).sort((a, b) => b[1] - a[1])
  return {
    every: list.filter(([, n]) => n >= 0.99).length,
    some: list.length,
    calls: list.reduce((sum, [, n]) => sum + n, 0),
    list,
  }
}
