import { seededPrng } from './prng.ts'
import { ShopState } from './shop-state.ts'
import type { Unit } from './unit.ts'
import { UNIT_KINDS, type UnitKind } from './unit-kinds.ts'

/** The kind whose share of the total weight holds `draw` (0 <= draw < total weight). */
function pickKind(draw: number): UnitKind {
  let left = draw
  for (const [kind, weight] of UNIT_KINDS) {
    if (left < weight) return kind
    left -= weight
  }
  throw new RangeError(`no unit kind at ${draw}`)
}

/** Units that may run at the same time: the units of one round never touch the same seeded row. */
export const ROUND_SIZE = 4

/**
 * `count` units of work of the realistic mix, the same for the same `seed`: new rows across a varying
 * set of tables (a purchase and its lines, payments, tags...), updates of varying column sets of
 * loaded rows, deletes, and the reads before them. Consecutive groups of {@link ROUND_SIZE} units touch
 * disjoint rows, so they can run at the same time; run in order, they always find the rows they expect
 * in a freshly seeded shop.
 *
 * @example
 * const units = generateUnits(1, 40)
 * units[0]?.kind // 'checkout', on every run
 */
export function generateUnits(seed: number, count: number): Unit[] {
  const state = new ShopState(seededPrng(seed))
  const totalWeight = UNIT_KINDS.reduce((n, [, w]) => n + w, 0)
  const units: Unit[] = []
  for (let i = 0; i < count; i++) {
    if (i % ROUND_SIZE === 0) state.newRound()
    units.push(pickKind(state.rng.int(totalWeight))(state, i))
  }
  return units
}
