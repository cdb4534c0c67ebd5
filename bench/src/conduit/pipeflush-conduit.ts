import { openDriver } from '../series/driver-client.ts'
import { pipeflushUnavailable } from '../series/pipeflush.ts'
import { type DriverName, seriesId } from '../series/types.ts'
import type { ConduitClient, ConduitSeries } from './conduit-requests.ts'

/**
 * pipeflush serving the Conduit requests through the example's repositories (burst: every read of a
 * tick in one message, every flush in one round trip). The example is imported when a client opens,
 * so that a broken `@pipeflush/core` makes the series unavailable instead of failing the run.
 */
function pipeflushConduit(driver: DriverName): ConduitSeries {
  return {
    name: 'pipeflush-burst',
    driver,
    id: seriesId('pipeflush-burst', driver),
    description: `the Conduit example's PipeflushStore and repositories (burst) on ${driver === 'pg' ? 'a pg.Pool with pipeline: true' : 'postgres.js'}`,
    unavailableReason: pipeflushUnavailable,
    async open(target, pool): Promise<ConduitClient> {
      const c = await openDriver(driver, target.url, pool)
      try {
        const { pipeflushConduitClient } = await import('./pipeflush-conduit-client.ts')
        return await pipeflushConduitClient(c)
      } catch (e) {
        await c.close()
        throw e
      }
    },
  }
}

/** pipeflush on postgres.js and on a `pg.Pool`. */
export const pipeflushConduit2: readonly ConduitSeries[] = [
  pipeflushConduit('postgres.js'),
  pipeflushConduit('pg'),
]
