import { drizzleRealistic2 } from './drizzle-unit.ts'
import { mikroOrmRealistic } from './mikroorm-unit.ts'
import { pipeflushDrizzleRealistic2 } from './pipeflush-drizzle-unit.ts'
import { pipeflushRealistic2 } from './pipeflush-unit.ts'
import { rawRealistic2 } from './raw-unit.ts'
import type { RealisticSeries } from './runner.ts'

/**
 * Every library that replays the realistic workload: pipeflush on both drivers (on its own, and
 * through `@pipeflush/drizzle`), the raw drivers, MikroORM, Drizzle on both drivers.
 */
export const REALISTIC_SERIES: readonly RealisticSeries[] = [
  rawRealistic2[0],
  ...pipeflushRealistic2,
  ...pipeflushDrizzleRealistic2,
  mikroOrmRealistic,
  ...drizzleRealistic2,
  rawRealistic2[1],
].filter((s): s is RealisticSeries => s !== undefined)
