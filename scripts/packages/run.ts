import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's root folder. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** What a finished command printed. */
export interface RunResult {
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

export interface RunOptions {
  readonly cwd?: string
  readonly env?: NodeJS.ProcessEnv
  readonly timeoutMs?: number
}

/**
 * The environment for a child npm or node outside the workspace: the variables `npm run` sets
 * (`npm_config_*`, `npm_package_*`, `npm_lifecycle_*`, `INIT_CWD`) are left out, so that a nested npm
 * reads no setting of the workspace's run (`npm_config_local_prefix` would make it install there).
 */
export function cleanEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_(config|package|lifecycle)_/i.test(k) || k === 'INIT_CWD' || k === 'DATABASE_URL') continue
    env[k] = v
  }
  return { ...env, ...extra }
}

/**
 * Runs a command to its end and returns what it printed; a non-zero exit, a signal or the timeout
 * (default 5 minutes) is an error carrying both outputs.
 *
 * @example
 * const { stdout } = await run('npm', ['--version'])
 */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d
    })
    const timeoutMs = options.timeoutMs ?? 300_000
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const ms = performance.now() - started
      if (code === 0) return resolve({ stdout, stderr, ms })
      const why = signal
        ? `killed by ${signal}${signal === 'SIGKILL' ? ` (timeout ${timeoutMs} ms?)` : ''}`
        : `exit ${code}`
      reject(
        new Error(
          `${command} ${args.join(' ')} (in ${options.cwd ?? ROOT}): ${why}\n--- stdout\n${stdout}--- stderr\n${withoutNpmNoise(stderr)}`,
        ),
      )
    })
  })
}

/** stderr without npm's warning about the machine's `nodedir` setting, repeated by every npm call. */
export function withoutNpmNoise(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !l.includes('Unknown user config "nodedir"'))
    .join('\n')
}

/** `12.3 s` */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}
