/**
 * A small seeded PRNG (mulberry32): the same seed gives the same sequence, so every run of an example
 * does the same work. Returns integers from 0 to 2^32 - 1.
 *
 * @example
 * const next = seededRandom(7)
 * next() % 100 // 0..99, the same on every run
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
}
