import { spawn } from 'node:child_process'

/** How a child process of {@link runChild} ended, and what it printed. */
export interface ChildRun {
  /** Its exit code: null when a signal ended it (its limit, or a crash). */
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  /** Its standard error: where Node prints an uncaught exception or unhandled rejection before it exits. */
  readonly stderr: string
  /** From its start to its end, ms. */
  readonly ms: number
}

/**
 * Runs `file` (a module of the tests, on the workspace's TypeScript sources) in a Node process of its
 * own under Node's defaults (no NODE_OPTIONS: a stray rejection ends it with a non-zero code, a timer
 * or socket left behind keeps it from exiting), given `config` as JSON in its first argument; killed
 * after `limitMs` (its code then null, its signal SIGKILL).
 *
 * @example
 * const run = await runChild(CHILD, { url: db.url })
 * expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
 */
export function runChild(file: string, config: unknown, limitMs = 120_000): Promise<ChildRun> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=@pipeflush/source', file, JSON.stringify(config)], {
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
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started })
    })
  })
}

/** The JSON of the last line `run` printed (a child's result), or undefined when that is not JSON. */
export function lastLine<T>(run: ChildRun): T | undefined {
  try {
    return JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as T
  } catch {
    return undefined
  }
}
