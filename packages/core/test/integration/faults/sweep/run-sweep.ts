import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { TestDatabase } from '@pipeflush/testkit/vitest'
import { lastLine, runChild as runProcess } from '../../child-process.ts'
import type { SweepConfig, SweepResult } from './sweep-child.ts'

const CHILD = fileURLToPath(new URL('./sweep-child.ts', import.meta.url))
/**
 * Past this a child is killed (its signal then SIGKILL): shorter than its test's timeout, so that what
 * it printed is seen.
 */
const SWEEP_CHILD_LIMIT_MS = 1_150_000

/** What a child process of the sweep ended with. */
export interface ChildRun {
  readonly config: Partial<SweepConfig>
  readonly exitCode: number | null
  readonly signal: string | null
  readonly result: SweepResult | undefined
  /** Its standard error: where Node prints an unhandled rejection before it exits. */
  readonly stderr: string
  readonly ms: number
}

/**
 * Runs `sweep-child.ts` for one combination in a Node process of its own (the same Node, with the
 * workspace's TypeScript sources), with Node's default handling of unhandled rejections.
 */
export async function runChild(
  db: TestDatabase,
  config: Omit<SweepConfig, 'adminUrl' | 'toxiproxyUrl' | 'postgresHost' | 'postgresPort' | 'name'>,
): Promise<ChildRun> {
  const full: SweepConfig = {
    ...config,
    adminUrl: db.url,
    toxiproxyUrl: db.services.toxiproxyUrl,
    postgresHost: db.services.postgresHost,
    postgresPort: db.services.postgresPort,
    name: `sw_${randomBytes(4).toString('hex')}`,
  }
  const run = await runProcess(CHILD, full, SWEEP_CHILD_LIMIT_MS)
  return {
    config,
    exitCode: run.code,
    signal: run.signal,
    result: lastLine<SweepResult>(run),
    stderr: run.stderr,
    ms: run.ms,
  }
}

/** Runs `tasks` with at most `limit` at a time. */
export async function inParallel<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length)
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++
      out[i] = await tasks[i]!()
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker))
  return out
}
