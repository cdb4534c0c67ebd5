import type { ConduitSeries } from './conduit-requests.ts'
import { mikroOrmConduit } from './mikroorm-conduit.ts'
import { pipeflushConduit2 } from './pipeflush-conduit.ts'
import { rawPgConduit } from './raw-pg-conduit.ts'

/** Every library serving the Conduit requests: pipeflush on both drivers, MikroORM, raw node-postgres (pipelined). */
export const CONDUIT_SERIES: readonly ConduitSeries[] = [...pipeflushConduit2, mikroOrmConduit, rawPgConduit]
