import type { PipelineMode } from '@pipeflush/core'
import type { Direction, DriverName } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { runChild } from './run-sweep.ts'
import type { CaseResult } from './sweep-child.ts'

const MODES: readonly PipelineMode[] = ['off', 'waves', 'burst']
const DIRECTIONS: readonly Direction[] = ['upstream', 'downstream']
const POOLS = [1, 3] as const
/** Evenly spread offsets per toxic, besides the protocol's phase boundaries. */
const OFFSETS = 40

/**
 * The fault sweep of one driver: for each mode, direction, pool size (1 and 3) and a warm or a cold
 * connection, one child process cuts the flush at every offset (see `sweep-child.ts`) with each toxic.
 * Each child must exit 0 (no unhandled rejection, no failed check), cover at least 40 offsets per
 * toxic, reach past the end of the flush (some flushes succeed), and settle every flush within 1 s of
 * its socket's end.
 */
export function defineSweep(driver: DriverName): void {
  const db = useTestDatabase()
  beforeAll(async () => {
    await db.sql.unsafe(
      'create table pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())',
    )
  })
  const combos = MODES.flatMap((mode) =>
    DIRECTIONS.flatMap((direction) =>
      POOLS.flatMap((pool) => [true, false].map((warm) => ({ mode, direction, pool, warm }))),
    ),
  )
  describe.concurrent(`${driver}: a connection cut at every byte of a flush`, () => {
    test.each(combos)(
      '$mode, $direction, pool of $pool, warm: $warm',
      async (combo) => {
        const run = await runChild(db, {
          driver,
          ...combo,
          toxics: ['limit_data', 'reset_peer', 'timeout'],
          offsets: OFFSETS,
        })
        const cases = run.result?.cases ?? []
        const problems = cases.filter((c) => c.problem !== undefined).map(describeCase)
        expect(
          { exitCode: run.exitCode, signal: run.signal, stderr: run.stderr.slice(0, 4000), problems },
          'the child ended cleanly and every case passed',
        ).toEqual({ exitCode: 0, signal: null, stderr: '', problems: [] })
        for (const toxic of ['limit_data', 'reset_peer', 'timeout'] as const) {
          const ofToxic = cases.filter((c) => c.toxic === toxic)
          expect(ofToxic.length, `${toxic}: offsets`).toBeGreaterThanOrEqual(OFFSETS)
          expect(ofToxic.some((c) => c.outcome === 'ok'), `${toxic}: some cut past the end`).toBe(true)
          expect(ofToxic.some((c) => c.outcome !== 'ok'), `${toxic}: some cut inside the flush`).toBe(true)
        }
        const worst = Math.max(0, ...cases.map((c) => c.settleAfterEndMs ?? 0))
        expect(worst, 'worst settle time after the socket ended (ms)').toBeLessThan(1000)
      },
      600_000,
    )
  })
}

function describeCase(c: CaseResult): string {
  return `${c.toxic} at ${c.offset}: ${c.outcome} (${c.problem}) ${c.message ?? ''}`
}
