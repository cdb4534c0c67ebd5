import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { TestDatabase } from '@pipeflush/testkit/vitest'
import type { SweepConfig, SweepResult } from './sweep-child.ts'

const CHILD = fileURLToPath(new URL('./sweep-child.ts', import.meta.url))

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
export function runChild(
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
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=@pipeflush/source', CHILD, JSON.stringify(full)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    child.on('close', (exitCode, signal) => {
      const line = stdout.trim().split('\n').pop() ?? ''
      let result: SweepResult | undefined
      try {
        result = JSON.parse(line) as SweepResult
      } catch {
        result = undefined
      }
      resolve({ config, exitCode, signal, result, stderr, ms: performance.now() - started })
    })
  })
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
