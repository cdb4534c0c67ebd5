import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// An end that waits for a hold released by a timer that does not keep the process alive (the
// postgres.js adapter's holds for reopenings are such): awaited at the top level of a script, the
// end must settle and the script go on, not the process exit with the end pending.
const CLIENT_END = fileURLToPath(new URL('../../../src/drivers/client-end.ts', import.meta.url))

describe('ClientEnd', () => {
  it('keeps the process alive while its end waits for a hold an unref timer releases', () => {
    const script = `
      import { ClientEnd } from ${JSON.stringify(CLIENT_END)}
      const end = new ClientEnd(() => ({ kind: 'connection', message: 'ended' }))
      const done = end.begin()
      setTimeout(done, 200).unref()
      await end.end(undefined, async () => {})
      console.log('ended')
    `
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(out.trim()).toBe('ended')
  })
})
