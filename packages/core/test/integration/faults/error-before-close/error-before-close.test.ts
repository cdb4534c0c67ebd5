import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { TEST_DRIVERS } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { lastLine, runChild } from '../../child-process.ts'
import type { ErrorBeforeCloseConfig, ErrorBeforeCloseResult } from './child.ts'

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))
const db = useTestDatabase()

describe.concurrent('a socket that errors while a read is in flight and a flush waits (pool of one)', () => {
  test.each(TEST_DRIVERS)(
    '%s: the connection is not handed to the flush, every later read gets its own answer, no stray error',
    async (driver) => {
      const config: ErrorBeforeCloseConfig = {
        driver,
        adminUrl: db.url,
        toxiproxyUrl: db.services.toxiproxyUrl,
        postgresHost: db.services.postgresHost,
        postgresPort: db.services.postgresPort,
        name: `ebc_${randomBytes(4).toString('hex')}`,
      }
      const run = await runChild(CHILD, config, 55_000)
      const result = lastLine<ErrorBeforeCloseResult>(run)
      expect({ code: run.code, stderr: run.stderr.slice(0, 4000), problems: result?.problems }).toEqual({
        code: 0,
        stderr: '',
        problems: [],
      })
      expect(result?.load, 'the load in flight when the socket failed').toBe('CONNECTION_LOST')
    },
    60_000,
  )
})
