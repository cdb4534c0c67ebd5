import { seededRandom } from '@pipeflush/example-support'
/** One reading of a device. */
export interface Reading {
  readonly device: number
  readonly recorded_at: Date
  readonly measure: number
}

/** Like the article's bash `$RANDOM`: an integer from 0 to 32767, from a seeded generator. */
function randomSource(seed: number): () => number {
  const next = seededRandom(seed)
  return () => next() % 32768
}

/**
 * `count` readings as the article makes them: device `$RANDOM`, time now + `$RANDOM * 50` seconds,
 * measure `$RANDOM.$RANDOM`. Seeded, so a seed gives the same readings every time. Some (device,
 * time) pairs repeat within a large batch: the last one wins.
 *
 * @example
 * const batch = makeReadings(1000, { seed: 1, start: new Date('2025-01-01T00:00:00Z') })
 */
export function makeReadings(
  count: number,
  options: { readonly seed: number; readonly start: Date },
): Reading[] {
  const random = randomSource(options.seed)
  const start = Math.floor(options.start.getTime() / 1000)
  return Array.from({ length: count }, () => ({
    device: random(),
    recorded_at: new Date((start + random() * 50) * 1000),
    measure: Number(`${random()}.${random()}`),
  }))
}

/** The same readings (same devices and times) with new measures: every upsert is an update. */
export function remeasure(readings: readonly Reading[], delta: number): Reading[] {
  return readings.map((r) => ({ ...r, measure: r.measure + delta }))
}
