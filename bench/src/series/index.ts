import { copySeries } from './copy.ts'
import { mikroOrmSeries } from './mikroorm.ts'
import { pgPipelineSeries } from './pg-pipeline.ts'
import { pipeflushSeries3, tracedSeries4 } from './pipeflush.ts'
import { rawSeries3 } from './raw.ts'
import { sameStatementSeries4 } from './same-statements.ts'
import { bySeries, type DriverName, SERIES_NAMES, type Series, type SeriesName } from './types.ts'

/** Every series on every driver it runs on, in {@link SERIES_NAMES} order, postgres.js first. */
export const ALL_SERIES: readonly Series[] = [
  ...rawSeries3,
  ...pipeflushSeries3,
  ...tracedSeries4,
  mikroOrmSeries,
  pgPipelineSeries,
  ...sameStatementSeries4,
  copySeries,
].sort(bySeries)

/**
 * The series named `names` (all when undefined) on `drivers` (all when undefined). Throws on an
 * unknown name, listing the known ones.
 *
 * @example
 * selectSeries(['pipeflush-burst'], ['pg']).map((s) => s.id) // ['pipeflush-burst (pg)']
 */
export function selectSeries(
  names: readonly string[] | undefined,
  drivers?: readonly DriverName[],
): Series[] {
  const unknown = (names ?? []).filter((n) => !SERIES_NAMES.includes(n as SeriesName))
  if (unknown.length > 0)
    throw new Error(`unknown series: ${unknown.join(', ')} (known: ${SERIES_NAMES.join(', ')})`)
  return ALL_SERIES.filter(
    (s) => (!names || names.includes(s.name)) && (!drivers || drivers.includes(s.driver)),
  )
}
