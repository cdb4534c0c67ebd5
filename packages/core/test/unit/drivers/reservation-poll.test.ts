import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { everyPoll, POLL_MS } from '../../../src/drivers/postgres-js/reservation-poll.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `done()` holds, up to 5 s (a busy machine runs timers late, never early). */
async function until(done: () => boolean): Promise<void> {
  const limit = performance.now() + 5_000
  while (!done() && performance.now() < limit) await sleep(10)
}

describe('everyPoll', () => {
  it('runs every registered check about every POLL_MS until it is stopped, each on its own', async () => {
    let a = 0
    let b = 0
    const stopA = everyPoll(() => a++)
    const stopB = everyPoll(() => b++)
    const started = performance.now()
    await until(() => a >= 3)
    // Never more often than every POLL_MS (a timer may run late, never early), both in each tick.
    expect(a).toBe(3)
    expect(performance.now() - started).toBeGreaterThanOrEqual(POLL_MS * 2)
    expect(b).toBe(a)
    stopA()
    stopA() // twice is harmless
    const atStop = a
    await until(() => b >= atStop + 2)
    expect(a).toBe(atStop)
    expect(b).toBe(atStop + 2)
    stopB()
    const bAtStop = b
    await sleep(POLL_MS * 2.5)
    expect(b).toBe(bAtStop)
  })

  it('lets a check stop itself or register another while the checks run', async () => {
    const ran: string[] = []
    const stopFirst = everyPoll(() => {
      ran.push('first')
      stopFirst()
      const stopSecond = everyPoll(() => {
        ran.push('second')
        stopSecond()
      })
    })
    await until(() => ran.length >= 2)
    await sleep(POLL_MS * 2.5)
    expect(ran).toEqual(['first', 'second'])
  })

  it('keeps the process alive while a check is registered, and not once every check is stopped', async () => {
    const module = fileURLToPath(
      new URL('../../../src/drivers/postgres-js/reservation-poll.ts', import.meta.url),
    )
    const run = (script: string) =>
      new Promise<{ ms: number; out: string }>((resolve, reject) => {
        const started = performance.now()
        execFile(
          process.execPath,
          ['--input-type=module', '-e', `import { everyPoll } from ${JSON.stringify(module)}\n${script}`],
          { timeout: 20_000 },
          (error, stdout) =>
            error ? reject(error) : resolve({ ms: performance.now() - started, out: stdout.trim() }),
        )
      })
    // Stopped at once: the process ends without waiting for a tick.
    const stopped = await run('const stop = everyPoll(() => console.log("ran")); stop()')
    expect(stopped.out).toBe('')
    // Registered: the process waits for the checks until the last one stops itself.
    const pending = await run(
      'let n = 0; const stop = everyPoll(() => { n++; if (n === 3) { console.log("three"); stop() } })',
    )
    expect(pending.out).toBe('three')
    expect(pending.ms).toBeLessThan(15_000)
  })
})
