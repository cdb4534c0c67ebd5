import { afterAll, afterEach, beforeAll, expect } from 'vitest'

/**
 * Makes every test of the file fail when an unhandled rejection or an uncaught exception happened
 * while it ran (or in the 20 ms after): a flush must never leave one, whatever the server does.
 * Under Node's default handling such a rejection ends the process; vitest reports it as an error of
 * the run (and fails the run); this names the test it came from.
 */
export function failOnStrayErrors(): void {
  const seen: string[] = []
  const onRejection = (e: unknown) => seen.push(`unhandledRejection: ${(e as Error)?.stack ?? String(e)}`)
  const onException = (e: unknown) => seen.push(`uncaughtException: ${(e as Error)?.stack ?? String(e)}`)
  beforeAll(() => {
    process.on('unhandledRejection', onRejection)
    process.on('uncaughtException', onException)
  })
  afterEach(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(seen.splice(0), 'no unhandled rejection or uncaught exception').toEqual([])
  })
  afterAll(() => {
    process.off('unhandledRejection', onRejection)
    process.off('uncaughtException', onException)
  })
}
