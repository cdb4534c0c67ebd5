import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { lastLine, runChild } from '../child-process.ts'
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
export async function runSoak(
  services: SoakServices,
  config: Omit<SoakConfig, keyof SoakServices | 'name'>,
): Promise<SoakRun> {
  const full: SoakConfig = { ...config, ...services, name: `soak_${randomBytes(4).toString('hex')}` }
  // Killed short of its test's timeout (its seconds and two minutes), so that what it printed is seen.
  const run = await runChild(CHILD, full, config.seconds * 1000 + 115_000)
  return {
    exitCode: run.code,
    signal: run.signal,
    result: lastLine<SoakResult>(run),
    stderr: run.stderr,
    ms: run.ms,
  }
}
