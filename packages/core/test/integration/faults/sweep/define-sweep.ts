import type { PipelineMode } from '@pipeflush/core'
import type { Direction, DriverName } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { runChild } from './run-sweep.ts'
import type { CaseResult } from './sweep-child.ts'

const MODES: readonly PipelineMode[] = ['off', 'waves', 'burst']
const DIRECTIONS: readonly Direction[] = ['upstream', 'downstream']
const POOLS = [1, 3] as const
/**
 * How densely a flush is cut: evenly spread offsets per toxic, and phase boundaries cut at most (each
 * there and one byte past it). `npm test` cuts at 16 and 16 (the sweep files in about 11 minutes
 * between them on a 2-core machine); `npm run test:sweeps` (`PIPEFLUSH_SWEEP=full`) at 40 and 40
 * (about 30).
 */
const DENSITY =
  process.env['PIPEFLUSH_SWEEP'] === 'full'
    ? { offsets: 40, boundaryCuts: 40 }
    : { offsets: 16, boundaryCuts: 16 }
const OFFSETS = DENSITY.offsets

/**
 * The fault sweep of one driver: for each mode, direction, pool size (1 and 3) and a warm or a cold
 * connection, one child process cuts the flush at every offset (see `sweep-child.ts`) with each toxic.
 * Each child must exit 0 (no unhandled rejection, no failed check), cover at least `DENSITY.offsets` offsets per
 * toxic, reach past the end of the flush (some flushes succeed), and settle every flush within 1 s of
 * its socket's end.
 */
export function defineSweep(
  driver: DriverName,
  kind: 'flush' | 'reads' = 'flush',
  extra: { readonly copyRows?: number; readonly unit?: 'mixed' | 'plain-inserts' } = {},
): void {
  const db = useTestDatabase()
  beforeAll(async () => {
    await db.sql.unsafe(
      'create table pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())',
    )
  })
  // A read does not depend on the pipeline mode, nor on the pool's other connections: one mode, a
  // pool of 1, every direction and warmth.
  const pools = kind === 'reads' ? [1] : POOLS
  const combos = (kind === 'reads' ? (['burst'] as const) : MODES).flatMap((mode) =>
    DIRECTIONS.flatMap((direction) =>
      pools.flatMap((pool) => [true, false].map((warm) => ({ mode, direction, pool, warm }))),
    ),
  )
  const what =
    kind === 'reads'
      ? 'a read (find, load, wasCommitted, a batch of reads of one tick, a graph load)'
      : extra.unit === 'plain-inserts'
        ? `a flush of ${extra.copyRows ?? 'many'} plain inserts (planned column by column, sent as COPY)`
        : extra.copyRows === undefined
          ? 'a flush'
          : `a flush (inserts of ${extra.copyRows}+ rows as COPY)`
  describe.concurrent(`${driver}: a connection cut at every byte of ${what}`, () => {
    test.each(combos)(
      '$mode, $direction, pool of $pool, warm: $warm',
      async (combo) => {
        const run = await runChild(db, {
          driver,
          ...combo,
          toxics: ['limit_data', 'reset_peer', 'timeout'],
          ...DENSITY,
          kind,
          ...extra,
        })
        const cases = run.result?.cases ?? []
        const problems = cases.filter((c) => c.problem !== undefined).map(describeCase)
        expect(
          { exitCode: run.exitCode, signal: run.signal, stderr: run.stderr.slice(0, 4000), problems },
          'the child ended cleanly and every case passed',
        ).toEqual({ exitCode: 0, signal: null, stderr: '', problems: [] })
        for (const toxic of ['limit_data', 'reset_peer', 'timeout'] as const) {
          for (const read of kind === 'reads'
            ? (['find', 'load', 'wasCommitted', 'batch', 'graph'] as const)
            : [undefined]) {
            const ofToxic = cases.filter((c) => c.toxic === toxic && c.read === read)
            const label = `${toxic}${read ? ` ${read}` : ''}`
            expect(ofToxic.length, `${label}: offsets`).toBeGreaterThanOrEqual(OFFSETS)
            expect(
              ofToxic.some((c) => c.outcome === 'ok'),
              `${label}: some cut past the end`,
            ).toBe(true)
            expect(
              ofToxic.some((c) => c.outcome !== 'ok'),
              `${label}: some cut inside it`,
            ).toBe(true)
          }
        }
        const worst = Math.max(0, ...cases.map((c) => c.settleAfterEndMs ?? 0))
        expect(worst, 'worst settle time after the socket ended (ms)').toBeLessThan(1000)
      },
      1_200_000,
    )
  })
}

function describeCase(c: CaseResult): string {
  return `${c.toxic} at ${c.offset}: ${c.outcome} (${c.problem}) ${c.message ?? ''}`
}
