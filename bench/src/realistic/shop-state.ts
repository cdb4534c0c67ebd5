import type { Prng } from './prng.ts'
import { SEED, seededLineId } from './shop-schema.ts'

/**
 * What the generator knows of the shop while it writes units of work: the seeded rows still there
 * (rows created by units are never targeted: their ids depend on the library), and the rows taken by
 * the units of the current round, so units that run at the same time never touch the same row (no
 * lock waits, no deadlocks between them).
 */
export class ShopState {
  readonly rng: Prng
  /** Seeded purchases not cancelled, and their lines still there. */
  readonly #lines = new Map<number, number[]>()
  #taken = new Set<string>()

  constructor(rng: Prng) {
    this.rng = rng
    for (let p = 1; p <= SEED.purchases; p++)
      this.#lines.set(
        p,
        Array.from({ length: SEED.linesPerPurchase }, (_, k) => seededLineId(p, k + 1)),
      )
  }

  /** Starts a new round: rows taken by the previous one are free again. */
  newRound(): void {
    this.#taken = new Set()
  }

  /** A customer (1..n) no other unit of the round touches. */
  customer(): number {
    return this.#take('customer', () => 1 + this.rng.int(SEED.customers))
  }

  /** A product no other unit of the round touches. */
  product(): number {
    return this.#take('product', () => 1 + this.rng.int(SEED.products))
  }

  /** A purchase still there that no other unit of the round touches. */
  purchase(): number {
    const alive = [...this.#lines.keys()]
    return this.#take('purchase', () => this.rng.pick(alive))
  }

  /** The lines of purchase `p` still there. */
  lines(p: number): readonly number[] {
    return this.#lines.get(p) ?? []
  }

  /** Line `line` of purchase `p` is deleted. */
  deleteLine(p: number, line: number): void {
    this.#lines.set(
      p,
      this.lines(p).filter((l) => l !== line),
    )
  }

  /** Purchase `p` is deleted (its lines with it). */
  deletePurchase(p: number): void {
    this.#lines.delete(p)
  }

  #take(table: string, draw: () => number): number {
    for (let i = 0; i < 1000; i++) {
      const id = draw()
      const key = `${table}:${id}`
      if (!this.#taken.has(key)) {
        this.#taken.add(key)
        return id
      }
    }
    throw new Error(`no free ${table} left in this round`)
  }
}
