import { copySeries } from './copy.ts'
import { mikroOrmSeries } from './mikroorm.ts'
import { pgPipelineSeries } from './pg-pipeline.ts'
import { pipeflushSeries3 } from './pipeflush.ts'
import { rawSeries3 } from './raw.ts'
import { SERIES_NAMES, type Series, type SeriesName } from './types.ts'

/** Every series, in {@link SERIES_NAMES} order. */
export const ALL_SERIES: readonly Series[] = [
  ...rawSeries3,
  ...pipeflushSeries3,
  mikroOrmSeries,
  pgPipelineSeries,
  copySeries,
].sort((a, b) => SERIES_NAMES.indexOf(a.name) - SERIES_NAMES.indexOf(b.name))

/** The series named `names` (all when undefined). Throws on an unknown name, listing the known ones. */
export function selectSeries(names: readonly string[] | undefined): Series[] {
  if (!names) return [...ALL_SERIES]
  const unknown = names.filter((n) => !SERIES_NAMES.includes(n as SeriesName))
  if (unknown.length > 0)
    throw new Error(`unknown series: ${unknown.join(', ')} (known: ${SERIES_NAMES.join(', ')})`)
  return ALL_SERIES.filter((s) => names.includes(s.name))
}
