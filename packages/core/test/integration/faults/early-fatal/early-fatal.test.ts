import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { expect, test } from 'vitest'
import { lastLine, runChild } from '../../child-process.ts'
import type { EarlyFatalConfig, EarlyFatalResult } from './child.ts'

// See child.ts: a FATAL read with a new pg connection's ReadyForQuery crashed the process.
const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))
const db = useTestDatabase()

test('pg: the server ends a connection as the pool hands it over (a FATAL in the same read as its ReadyForQuery): the read fails CONNECTION_LOST, the process goes on', async () => {
  const config: EarlyFatalConfig = { url: db.url, table: `ef_${randomBytes(4).toString('hex')}` }
  const run = await runChild(CHILD, config, 50_000)
  const result = lastLine<EarlyFatalResult>(run)
  expect({ code: run.code, stderr: run.stderr.slice(0, 3000) }).toEqual({ code: 0, stderr: '' })
  expect(result?.reads.length).toBe(3)
  for (const read of result?.reads ?? []) expect(['ok', 'CONNECTION_LOST']).toContain(read)
  expect(result?.reads).toContain('CONNECTION_LOST')
}, 60_000)
