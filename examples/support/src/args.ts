import { parseArgs } from 'node:util'
import type { DriverName } from '@pipeflush/testkit'

/**
 * The drivers an example runs on: `pg` (a `pg.Pool` with `pipeline: true`, the default),
 * `postgres.js`, and `pg-simple` (a `pg.Pool` without pipelining).
 */
const DRIVERS: readonly DriverName[] = ['pg', 'postgres.js', 'pg-simple']

/** Options every example takes on its command line. */
export interface ExampleArgs {
  /** Latency added to every answer of the server, in ms (`--latency`, default 2). */
  readonly latencyMs: number
  /** Pipeline modes to compare (`--modes burst,off`, the default). */
  readonly modes: readonly ('off' | 'waves' | 'burst')[]
  /** `--cold`: print the first run on fresh connections instead of a run after a warm-up. */
  readonly cold: boolean
  /** The application's pool: `--driver pg` (the default), `postgres.js` or `pg-simple`. */
  readonly driver: DriverName
}

/**
 * Parses `--latency <ms>`, `--modes <list>`, `--cold` and `--driver <name>` (and the extra options
 * given: strings in `values`, booleans in `flags`).
 *
 * @example
 * const { latencyMs, modes, driver } = parseExampleArgs(['--latency', '2', '--driver', 'postgres.js'])
 * // latencyMs 2, modes ['burst', 'off'], driver 'postgres.js'
 */
export function parseExampleArgs(
  argv: readonly string[],
  extra: Record<string, { type: 'string'; default?: string } | { type: 'boolean'; default?: boolean }> = {},
): ExampleArgs & {
  readonly values: Record<string, string | undefined>
  readonly flags: Record<string, boolean>
} {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      latency: { type: 'string', default: '2' },
      modes: { type: 'string', default: 'burst,off' },
      cold: { type: 'boolean', default: false },
      driver: { type: 'string', default: 'pg' },
      ...extra,
    },
    strict: true,
  })
  const latencyMs = Number(values.latency)
  if (!Number.isFinite(latencyMs) || latencyMs < 0)
    throw new Error(`--latency must be a number of ms, not ${values.latency}`)
  const modes = String(values.modes)
    .split(',')
    .map((m) => m.trim())
  for (const m of modes)
    if (m !== 'off' && m !== 'waves' && m !== 'burst')
      throw new Error(`unknown mode ${m} (off, waves, burst)`)
  const driver = DRIVERS.find((d) => d === values.driver)
  if (!driver) throw new Error(`unknown driver ${values.driver} (${DRIVERS.join(', ')})`)
  const strings = Object.fromEntries(
    Object.entries(values).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>
  const flags = Object.fromEntries(
    Object.entries(values).filter(([k, v]) => typeof v === 'boolean' && k !== 'cold'),
  ) as Record<string, boolean>
  return {
    latencyMs,
    modes: modes as ExampleArgs['modes'],
    cold: values.cold === true,
    driver,
    values: strings,
    flags,
  }
}
