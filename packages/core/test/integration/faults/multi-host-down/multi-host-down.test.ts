import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { freePort } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { lastLine, runChild } from '../../child-process.ts'
import type { MultiHostDownConfig, MultiHostDownResult } from './child.ts'

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))
const db = useTestDatabase()

describe('postgres.js, a multi-host URL with every host down', () => {
  test('connect and a flush fail HOST_UNREACHABLE at once, the hosts are not tried in a loop, the second host up serves the next flush, and the process exits after the end', async () => {
    const table = `mhd_${randomBytes(4).toString('hex')}`
    await db.sql.unsafe(`create table ${table} (id int8 primary key, name text not null)`)
    const config: MultiHostDownConfig = { url: db.url, ports: [await freePort(), await freePort()], table }
    const run = await runChild(CHILD, config, 40_000)
    expect({ code: run.code, stderr: run.stderr.slice(0, 4000) }).toEqual({ code: 0, stderr: '' })
    const r = lastLine<MultiHostDownResult>(run) as MultiHostDownResult
    const [a, b] = config.ports
    expect(r.connect.code).toBe('HOST_UNREACHABLE')
    expect(r.connect.message).toContain(`127.0.0.1:${a}`)
    expect(r.connect.message).toContain(`127.0.0.1:${b}`)
    // With one host postgres.js fails at once; with several it tried them until connect_timeout (30 s).
    expect(r.connect.ms).toBeLessThan(2_000)
    expect(r.flush.code).toBe('HOST_UNREACHABLE')
    expect(r.flush.ms).toBeLessThan(2_000)
    // postgres.js opened again at once for the requests it held: hundreds of openings a second.
    expect(r.openings).toBeLessThan(20)
    expect(r.recovered.rows).toBe(1)
    expect(r.recovered.attempts).toBeLessThanOrEqual(3)
    expect(r.downAgain).toBe('HOST_UNREACHABLE')
    expect(r.endMs).toBeLessThan(10_000)
    // The process exited by itself (the child was not killed) soon after the end.
    expect(run.ms).toBeLessThan(35_000)
    await db.sql.unsafe(`drop table ${table}`)
  }, 60_000)
})
