import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { SoakConfig, SoakResult } from './soak-child.ts'

const CHILD = fileURLToPath(new URL('./soak-child.ts', import.meta.url))

/** What a soak's child process ended with. */
export interface SoakRun {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly result: SoakResult | undefined
  /** Its standard error: where Node prints an uncaught exception or unhandled rejection before it exits. */
  readonly stderr: string
  readonly ms: number
}

/** Where the soak runs: the database (an admin URL), the server behind it and the toxiproxy API. */
export interface SoakServices {
  readonly adminUrl: string
  readonly postgresHost: string
  readonly postgresPort: number
  readonly toxiproxyUrl: string
}

/**
 * Runs `soak-child.ts` in a Node process of its own (the same Node, the workspace's TypeScript
 * sources) with Node's default handling of unhandled rejections and uncaught exceptions.
 *
 * @example
 * const run = await runSoak(services, { driver: 'pg', seconds: 20, seed: 1 })
 */
export function runSoak(
  services: SoakServices,
  config: Omit<SoakConfig, keyof SoakServices | 'name'>,
): Promise<SoakRun> {
  const full: SoakConfig = { ...config, ...services, name: `soak_${randomBytes(4).toString('hex')}` }
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
      let result: SoakResult | undefined
      try {
        result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as SoakResult
      } catch {
        result = undefined
      }
      resolve({ exitCode, signal, result, stderr, ms: performance.now() - started })
    })
  })
}
