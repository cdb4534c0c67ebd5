import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { driverFor } from '../../../src/drivers/driver-for.ts'
import { expectPoolFree } from './support.ts'

// A flush or a read whose connection comes at its deadline is terminated before anything is sent on
// it (its deadline has passed): that connection must go back to the pool. On postgres.js it stayed
// reserved for good (nothing was sent, so the adapter knew no socket to close), and with `max: 1` the
// whole client hung, the application's own queries included.
const db = useTestDatabase()

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([1, 3])(
    'a session terminated before anything was sent on it leaves the pool whole (max %i)',
    async (max) => {
      const c = db.client(driver, { max })
      const sessions = driverFor(c.client)
      for (let i = 0; i < max + 2; i++) {
        const session = await sessions.reserve({ deadline: performance.now() + 5_000 })
        session.terminate()
        session.release()
      }
      await expectPoolFree(c, max)
    },
  )

  // postgres.js writes a query a microtask after it is asked: terminated before that, it is never
  // written (cancelled), and the connection goes back; pg closes the connection under it.
  test('a session terminated as its first query is asked: the query fails, the pool stays whole', async () => {
    const c = db.client(driver, { max: 1 })
    const sessions = driverFor(c.client)
    const session = await sessions.reserve({ deadline: performance.now() + 5_000 })
    const answer = session.simple('select pg_sleep(5)').then(
      () => 'answered',
      () => 'failed',
    )
    session.terminate()
    session.release()
    expect(await answer).toBe('failed')
    await expectPoolFree(c, 1)
  })
})
