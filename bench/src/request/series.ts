import { mikroOrmRequests } from './mikroorm-request.ts'
import { pipeflushRequest2 } from './pipeflush-request.ts'
import { rawPgRequest } from './raw-pg-request.ts'
import type { RequestSeries } from './request.ts'

/** Every library serving the request: pipeflush on both drivers, MikroORM (each strategy), raw node-postgres. */
export const REQUEST_SERIES: readonly RequestSeries[] = [
  ...pipeflushRequest2,
  ...mikroOrmRequests,
  rawPgRequest,
]
