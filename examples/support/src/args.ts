import { parseArgs } from 'node:util'

/** Options every example takes on its command line. */
export interface ExampleArgs {
  /** Latency added to every answer of the server, in ms (`--latency`, default 2). */
  readonly latencyMs: number
  /** Pipeline modes to compare (`--modes burst,off`, the default). */
  readonly modes: readonly ('off' | 'waves' | 'burst')[]
  /** `--cold`: print the first run on fresh connections instead of a run after a warm-up. */
  readonly cold: boolean
}

/**
 * Parses `--latency <ms>`, `--modes <list>` and `--cold` (and the extra string options given).
 *
 * @example
 * const { latencyMs, modes } = parseExampleArgs(process.argv.slice(2))
 */
export function parseExampleArgs(
  argv: readonly string[],
  extra: Record<string, { type: 'string'; default?: string }> = {},
): ExampleArgs & { readonly values: Record<string, string | undefined> } {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      latency: { type: 'string', default: '2' },
      modes: { type: 'string', default: 'burst,off' },
      cold: { type: 'boolean', default: false },
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
  const strings = Object.fromEntries(
    Object.entries(values).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>
  return { latencyMs, modes: modes as ExampleArgs['modes'], cold: values.cold === true, values: strings }
}
