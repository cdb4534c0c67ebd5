import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { TEST_DRIVERS } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { lastLine, runChild } from '../../child-process.ts'
import type { TerminatedBackendsConfig, TerminatedBackendsResult } from './child.ts'

// Found by an outside probe: Conduit on postgres.js (a pool of 4) stayed broken for good after the
// server ended its backends under load, every query on a dead connection rejected with "write
// CONNECTION_CLOSED" by pipeflush's connection guard. See child.ts.
const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))
const db = useTestDatabase()

const CASES = TEST_DRIVERS.flatMap((driver) => [2, 4].map((max) => ({ driver, max })))

/** Runs the child on `driver`'s pool of `max` (the race too with `race`): no crash, no problem. */
async function expectRecovery(driver: (typeof CASES)[number]['driver'], max: number, race: boolean) {
  const config: TerminatedBackendsConfig = {
    driver,
    adminUrl: db.url,
    max,
    name: `tb_${randomBytes(4).toString('hex')}`,
    race,
  }
  const run = await runChild(CHILD, config, 55_000)
  const result = lastLine<TerminatedBackendsResult>(run)
  expect({ code: run.code, stderr: run.stderr.slice(0, 4000), problems: result?.problems }).toEqual({
    code: 0,
    stderr: '',
    problems: [],
  })
}

describe('the server ends the pool backends: every later read and flush succeeds', () => {
  test.each(CASES)(
    '$driver, pool of $max: once held connections ended, no connection stays dead in the pool',
    ({ driver, max }) => expectRecovery(driver, max, false),
    60_000,
  )
})

// The race (child.ts, 2): on postgres.js the process crashed in about 2 runs in 5 with postgres.js's
// "Cannot read properties of null (reading 'write')" from its write timer: a held session's first
// query written on a connection whose socket was gone (the cold pool's phase now shows it every run).
describe('the backends ended again and again under load', () => {
  test.each(CASES)(
    '$driver, pool of $max: no crash, and every later read and flush succeeds',
    ({ driver, max }) => expectRecovery(driver, max, true),
    60_000,
  )
})
