import { describe, expect, it } from 'vitest'
import { EntityManager, isPipeflushError } from '../../src/index.ts'

// Options are checked before the client is touched: a misspelled one is refused, never dropped.
describe('EntityManager.connect options', () => {
  it('an option it does not know is INVALID_CONFIG naming the closest it knows', async () => {
    for (const [given, near] of [
      ['pipline', 'pipeline'],
      ['flushTimeoutMS', 'flushTimeoutMs'],
      ['prefetchId', 'prefetchIds'],
    ] as const) {
      const error = await EntityManager.connect({} as never, { [given]: 'x' } as never).catch(
        (e: unknown) => e,
      )
      expect(isPipeflushError(error, 'INVALID_CONFIG'), String(error)).toBe(true)
      expect((error as Error).message).toContain(`unknown option "${given}" (did you mean "${near}"?)`)
    }
    const far = await EntityManager.connect({} as never, { colour: 'blue' } as never).catch((e: unknown) => e)
    expect((far as Error).message).toMatch(/unknown option "colour"; the options are pipeline, schema, /)
  })
})
