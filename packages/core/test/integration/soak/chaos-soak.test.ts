import { createDatabase, TEST_DRIVERS } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { findPgBouncer, startPgBouncer } from '../faults/pgbouncer.ts'
import { runSoak, type SoakRun } from './run-soak.ts'
import { startTlsPostgres } from './tls-postgres.ts'

/** Seconds of chaos per driver here (`PIPEFLUSH_SOAK_SECONDS`); `npm run soak` runs longer ones. */
const SECONDS = Number(process.env['PIPEFLUSH_SOAK_SECONDS'] ?? 20)
/** Seconds of chaos per driver behind PgBouncer (`npm run soak -- --pgbouncer` runs longer ones). */
const SECONDS_BEHIND_PGBOUNCER = Math.min(SECONDS, 15)
/** Seconds of chaos per driver over TLS (`npm run soak -- --tls` runs longer ones). */
const SECONDS_OVER_TLS = Math.min(SECONDS, 15)

const db = useTestDatabase()
const pgbouncer = findPgBouncer()

/** The soak's child ended cleanly, broke no guarantee, and did what a soak is for. */
function expectPassed(run: SoakRun, seed: number, seconds: number): void {
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
  // (A pool that did not work again once the chaos stopped is one of the child's problems, above.)
  if (r === undefined) return
  // What the run did, in every message below: a failure here must say enough to be understood.
  const ran =
    `seed ${seed}: flushes ${JSON.stringify(r.outcomes)}, reads ${JSON.stringify(r.reads)}, ` +
    `faults ${JSON.stringify(r.chaos.faults)}, second by second ${r.timeline.join(', ')}`
  // The soak did what it is for: units committed and reads answered, enough for the checks of
  // lost, partial and phantom rows to mean something, the chaos broke some flushes. A floor, not a
  // rate: alone on this machine a soak commits 25-55 flushes a second, under the load of a full test
  // run (other files, the other driver's soak) a few, while a timeout fault stalls every connection.
  expect(r.outcomes['ok'] ?? 0, `flushes committed; ${ran}`).toBeGreaterThanOrEqual(seconds)
  expect(r.reads['ok'] ?? 0, `reads answered (and checked); ${ran}`).toBeGreaterThanOrEqual(2 * seconds)
  const failed = r.flushes - (r.outcomes['ok'] ?? 0) - (r.outcomes['OPTIMISTIC_LOCK'] ?? 0)
  expect(failed, `flushes the chaos broke; ${ran}`).toBeGreaterThan(0)
  expect(
    Object.values(r.chaos.faults).every((n) => n > 0) || seconds < 20,
    `every kind of fault; ${ran}`,
  ).toBe(true)
  expect(r.slowestMs, `the slowest flush or read (ms); ${ran}`).toBeLessThanOrEqual(4000 + 1000)
}

// The short form of the chaos soak (`soak-child.ts`): 8 units of work at a time on a pool of 4 for
// tens of seconds through a proxy broken every 150-650 ms, in a child process under Node's defaults.
describe.concurrent('chaos soak', () => {
  test.each(TEST_DRIVERS)(
    '%s: no crash, nothing lost, phantom or partial, every read the rows asked for, every flush settled by its deadline',
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
      expectPassed(run, seed, SECONDS)
    },
    SECONDS * 1000 + 120_000,
  )
})

if (!pgbouncer) {
  test.skip('chaos soak behind PgBouncer: SKIPPED, no pgbouncer binary (apt-get install pgbouncer, or set PGBOUNCER=/path/to/pgbouncer)', () => {})
}

// The same, with a PgBouncer in transaction pooling mode between the proxy and the server: a pooler
// that gives a server connection back at the end of every transaction, so an answer read on the
// wrong side of a ReadyForQuery reaches another client (each read's rows are checked).
describe.skipIf(!pgbouncer)('chaos soak behind PgBouncer (transaction pooling)', () => {
  test.each(TEST_DRIVERS)(
    '%s: no crash, nothing lost, phantom or partial, every read the rows asked for',
    async (driver) => {
      const database = decodeURIComponent(new URL(db.url).pathname.slice(1))
      const bouncer = await startPgBouncer(pgbouncer!, db.url, database)
      try {
        const seed = Math.floor(Math.random() * 2 ** 31)
        const run = await runSoak(
          {
            adminUrl: db.url,
            postgresHost: '127.0.0.1',
            postgresPort: bouncer.port,
            toxiproxyUrl: db.services.toxiproxyUrl,
          },
          { driver, seconds: SECONDS_BEHIND_PGBOUNCER, seed },
        )
        expectPassed(run, seed, SECONDS_BEHIND_PGBOUNCER)
      } finally {
        await bouncer.stop()
      }
    },
    SECONDS_BEHIND_PGBOUNCER * 1000 + 120_000,
  )
})

// The same over TLS, on a server of its own: the proxy's faults land inside TLS records, and
// postgres.js upgrades the socket pipeflush made (its readiness, cancel key and close read from the
// TLS socket over it).
describe('chaos soak over TLS', () => {
  test.each(TEST_DRIVERS)(
    '%s: no crash, nothing lost, phantom or partial, every read the rows asked for',
    async (driver) => {
      const server = await startTlsPostgres()
      try {
        const seed = Math.floor(Math.random() * 2 ** 31)
        const run = await runSoak(
          {
            adminUrl: await createDatabase(server.url, 'pipeflush_soak_tls'),
            postgresHost: server.host,
            postgresPort: server.port,
            toxiproxyUrl: db.services.toxiproxyUrl,
          },
          { driver, seconds: SECONDS_OVER_TLS, seed, tls: true },
        )
        expectPassed(run, seed, SECONDS_OVER_TLS)
      } finally {
        await server.stop()
      }
    },
    SECONDS_OVER_TLS * 1000 + 180_000,
  )
})
