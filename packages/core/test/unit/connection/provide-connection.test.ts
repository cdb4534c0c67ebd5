import { describe, expect, it } from 'vitest'
import { type ConnectionSource, provideConnection } from '../../../src/connection/provide-connection.ts'
import type { Session } from '../../../src/drivers/driver.ts'
import { GuardedSession } from '../../../src/drivers/guarded-session.ts'
import { errors } from '../../../src/errors.ts'

/** A pool of one connection whose session records whether it was terminated and given back. */
function pool() {
  const seen = { terminated: false, ended: false }
  const session = {
    terminate: () => {
      seen.terminated = true
    },
  } as unknown as Session
  const source: ConnectionSource = {
    lease: async () => ({
      session,
      continued: false,
      begins: false,
      end: () => {
        seen.ended = true
      },
    }),
  }
  return { source, seen }
}

const use = (failure: Parameters<typeof provideConnection>[1]['failure']) => ({
  what: 'The flush',
  timeoutMs: 1000,
  session: (s: Session, deadline: number) => new GuardedSession(s, deadline),
  failure,
})

describe('provideConnection', () => {
  // An exception of code the flush ran between the waves of its transaction gave the connection back
  // inside that transaction (found by a review): the pool's next user would have committed it.
  it('closes the connection of work that failed on an exception of its own code (INTERNAL_ERROR), not given back open', async () => {
    const { source, seen } = pool()
    const thrown = new RangeError('Invalid array length')
    const error = await provideConnection(
      source,
      use((e) => errors.threwInFlush('f1', e)),
      async () => {
        throw thrown
      },
    ).catch((e: unknown) => e)
    expect((error as { code: string }).code).toBe('INTERNAL_ERROR')
    expect(seen).toEqual({ terminated: true, ended: true })
  })

  it('gives back, unterminated, the connection of work that failed otherwise', async () => {
    const { source, seen } = pool()
    const error = await provideConnection(
      source,
      use(() => errors.connectionLost('f1', 'gone')),
      async () => {
        throw new Error('gone')
      },
    ).catch((e: unknown) => e)
    expect((error as { code: string }).code).toBe('CONNECTION_LOST')
    expect(seen).toEqual({ terminated: false, ended: true })
  })
})
