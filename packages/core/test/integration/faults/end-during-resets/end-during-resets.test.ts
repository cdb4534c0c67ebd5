import { fileURLToPath } from 'node:url'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { lastLine, runChild } from '../../child-process.ts'
import type { EndDuringResetsConfig, EndDuringResetsResult } from './child.ts'

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))
const db = useTestDatabase()

describe('postgres.js, the end asked as the network starts resetting every connection', () => {
  test('the end settles and the process exits within a reconnect delay after it (it lived on for 70 to 90 s)', async () => {
    await db.sql.unsafe(`create table edr_item (id serial primary key, name text not null);
      insert into edr_item (name) values ('first')`)
    const config: EndDuringResetsConfig = {
      url: db.proxiedUrl,
      api: db.toxiproxy.apiUrl,
      proxy: db.proxy.name,
      table: 'edr_item',
    }
    const run = await runChild(CHILD, config, 60_000)
    expect({ code: run.code, stderr: run.stderr.slice(0, 4000) }).toEqual({ code: 0, stderr: '' })
    const r = lastLine<EndDuringResetsResult>(run) as EndDuringResetsResult
    expect(r.codes['ok'] ?? 0, 'units committed before the resets').toBeGreaterThan(0)
    expect(Object.keys(r.codes).filter((code) => code.startsWith('not a'))).toEqual([])
    expect(r.endMs).toBeLessThan(10_000)
    // At most one reconnect postgres.js scheduled before the end is waited for (its backoff: 20 s at
    // most); the openings for the requests it still held come at once, each refused.
    expect(run.ms - r.endMs, 'the process lived on after the end').toBeLessThan(30_000)
  }, 90_000)
})
