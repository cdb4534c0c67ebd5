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

describe('the server ends the pool backends: every later read and flush succeeds', () => {
  test.each(CASES)(
    '$driver, pool of $max: once a held connection ended and after kills under concurrent reads and flushes, no connection stays dead in the pool',
    async ({ driver, max }) => {
      const config: TerminatedBackendsConfig = {
        driver,
        adminUrl: db.url,
        max,
        name: `tb_${randomBytes(4).toString('hex')}`,
      }
      const run = await runChild(CHILD, config, 55_000)
      const result = lastLine<TerminatedBackendsResult>(run)
      expect({ code: run.code, stderr: run.stderr.slice(0, 4000), problems: result?.problems }).toEqual({
        code: 0,
        stderr: '',
        problems: [],
      })
    },
    60_000,
  )
})
