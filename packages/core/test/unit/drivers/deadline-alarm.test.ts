import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { setAlarm } from '../../../src/drivers/deadline-alarm.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves with the `performance.now()` at which an alarm for `deadline` rang. */
function rung(deadline: number): Promise<number> {
  return new Promise((resolve) => setAlarm(deadline, () => resolve(performance.now())))
}

describe('setAlarm', () => {
  it('rings at its deadline, not before, and once', async () => {
    const deadline = performance.now() + 30
    let rings = 0
    const at = await new Promise<number>((resolve) =>
      setAlarm(deadline, () => {
        rings++
        resolve(performance.now())
      }),
    )
    // A Node timer may fire up to a millisecond early.
    expect(at).toBeGreaterThanOrEqual(deadline - 1)
    await sleep(40)
    expect(rings).toBe(1)
  })

  it('rings alarms set later for earlier deadlines first, and each at its own deadline', async () => {
    const now = performance.now()
    const late = rung(now + 80)
    const early = rung(now + 20)
    const middle = rung(now + 50)
    const [a, b, c] = await Promise.all([early, middle, late])
    expect(a).toBeGreaterThanOrEqual(now + 19)
    expect(b).toBeGreaterThanOrEqual(now + 49)
    expect(c).toBeGreaterThanOrEqual(now + 79)
    expect(a).toBeLessThan(b)
    expect(b).toBeLessThan(c)
  })

  it('does not ring once cancelled, and the others still ring', async () => {
    const now = performance.now()
    let cancelledRang = false
    const alarm = setAlarm(now + 20, () => {
      cancelledRang = true
    })
    const other = rung(now + 40)
    alarm.cancel()
    alarm.cancel() // twice is harmless
    await other
    await sleep(10)
    expect(cancelledRang).toBe(false)
  })

  it('rings an alarm whose deadline has passed soon, never while it is set', async () => {
    let rang = false
    const past = new Promise<void>((resolve) =>
      setAlarm(performance.now() - 5, () => {
        rang = true
        resolve()
      }),
    )
    expect(rang).toBe(false)
    await past
    expect(rang).toBe(true)
  })

  it('never rings an infinite deadline', async () => {
    let rang = false
    setAlarm(Number.POSITIVE_INFINITY, () => {
      rang = true
    }).cancel()
    setAlarm(Number.POSITIVE_INFINITY, () => {
      rang = true
    })
    await sleep(20)
    expect(rang).toBe(false)
  })

  it('keeps the process alive while an alarm is pending, and not once every alarm is cancelled', async () => {
    const module = fileURLToPath(new URL('../../../src/drivers/deadline-alarm.ts', import.meta.url))
    const run = (script: string) =>
      new Promise<{ ms: number; out: string }>((resolve, reject) => {
        const started = performance.now()
        execFile(
          process.execPath,
          ['--input-type=module', '-e', `import { setAlarm } from ${JSON.stringify(module)}\n${script}`],
          { timeout: 20_000 },
          (error, stdout) =>
            error ? reject(error) : resolve({ ms: performance.now() - started, out: stdout.trim() }),
        )
      })
    // Cancelled: the 60-second timer must not hold the process.
    const cancelled = await run(
      'const a = setAlarm(performance.now() + 60000, () => console.log("rang")); a.cancel()',
    )
    expect(cancelled.out).toBe('')
    expect(cancelled.ms).toBeLessThan(15_000)
    // Pending: the process waits for it, then ends, also when a later alarm was set and cancelled.
    const pending = await run(
      'setAlarm(performance.now() + 300, () => console.log("rang")); setAlarm(performance.now() + 60000, () => {}).cancel()',
    )
    expect(pending.out).toBe('rang')
  })
})
