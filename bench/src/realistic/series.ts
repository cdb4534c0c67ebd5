import { mikroOrmRealistic } from './mikroorm-unit.ts'
import { pipeflushRealistic2 } from './pipeflush-unit.ts'
import { rawRealistic2 } from './raw-unit.ts'
import type { RealisticSeries } from './runner.ts'

/** Every library that replays the realistic workload: pipeflush on both drivers, the raw drivers, MikroORM. */
export const REALISTIC_SERIES: readonly RealisticSeries[] = [
  rawRealistic2[0],
  ...pipeflushRealistic2,
  mikroOrmRealistic,
  rawRealistic2[1],
].filter((s): s is RealisticSeries => s !== undefined)
