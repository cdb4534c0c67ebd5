/** A deterministic source of random numbers. */
export interface Prng {
  /** An integer in 0..n-1. */
  int(n: number): number
  /** True with probability `p`. */
  chance(p: number): boolean
  /** One element of `items`. */
  pick<T>(items: readonly T[]): T
}

/**
 * A seeded PRNG (mulberry32): the same seed gives the same sequence on every run and machine.
 *
 * @example
 * const rng = seededPrng(42)
 * rng.int(100) // the same number on every run
 */
export function seededPrng(seed: number): Prng {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  return {
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)]
      if (item === undefined) throw new RangeError('pick: no items')
      return item
    },
  }
}
