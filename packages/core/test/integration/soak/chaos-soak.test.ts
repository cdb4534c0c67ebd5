import { TEST_DRIVERS } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { runSoak } from './run-soak.ts'

/** Seconds of chaos per driver here (`PIPEFLUSH_SOAK_SECONDS`); `npm run soak` runs longer ones. */
const SECONDS = Number(process.env['PIPEFLUSH_SOAK_SECONDS'] ?? 20)

const db = useTestDatabase()

// The short form of the chaos soak (`soak-child.ts`): 8 units of work at a time on a pool of 4 for
// tens of seconds through a proxy broken every 150-650 ms, in a child process under Node's defaults.
describe.concurrent('chaos soak', () => {
  test.each(TEST_DRIVERS)(
    '%s: no crash, nothing lost, phantom or partial, every flush settled by its deadline',
    async (driver) => {
      const seed = Math.floor(Math.random() * 2 ** 31)
      const run = await runSoak(
        {
          adminUrl: db.url,
          postgresHost: db.services.postgresHost,
          postgresPort: db.services.postgresPort,
          toxiproxyUrl: db.services.toxiproxyUrl,
        },
        { driver, seconds: SECONDS, seed },
      )
      const r = run.result
      expect(
        {
          exitCode: run.exitCode,
          signal: run.signal,
          stderr: run.stderr.slice(0, 4000),
          problems: r?.problems ?? ['no result'],
        },
        `seed ${seed}: the child ended cleanly and broke no guarantee`,
      ).toEqual({ exitCode: 0, signal: null, stderr: '', problems: [] })
      if (r === undefined) return
      // The soak did what it is for: flushes committed, the chaos broke some, unknowns were resolved.
      expect(r.outcomes['ok'] ?? 0, 'flushes committed').toBeGreaterThan(100)
      expect(r.reads['ok'] ?? 0, 'reads answered (and checked)').toBeGreaterThan(200)
      const failed = r.flushes - (r.outcomes['ok'] ?? 0) - (r.outcomes['OPTIMISTIC_LOCK'] ?? 0)
      expect(failed, 'flushes the chaos broke').toBeGreaterThan(0)
      expect(Object.values(r.chaos.faults).every((n) => n > 0) || SECONDS < 20, 'every kind of fault').toBe(
        true,
      )
      expect(r.slowestMs, 'the slowest flush or read (ms)').toBeLessThanOrEqual(4000 + 1000)
    },
    SECONDS * 1000 + 120_000,
  )
})
