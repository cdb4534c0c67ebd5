/**
 * Ids of one sequence, in the order drawn: consecutive safe integers as their first and their count
 * (what a block fetched from a sequence of increment 1 almost always is), else their decimal texts.
 *
 * A block of 100,000 consecutive ids is two numbers, not 100,000 texts and the arrays copying them
 * from the answer to the pool and from the pool to the flush.
 */
export type IdRun =
  | { readonly first: number; readonly count: number; readonly texts?: undefined }
  | { readonly texts: readonly string[] }

/** How many ids `run` holds. */
export function runLength(run: IdRun): number {
  return run.texts === undefined ? run.count : run.texts.length
}

/** The ids `from` to `from + count` of `run` (within it), as a run. */
function partOf(run: IdRun, from: number, count: number): IdRun {
  if (run.texts === undefined) return { first: run.first + from, count }
  return { texts: run.texts.slice(from, from + count) }
}

/**
 * The free ids of one sequence, in the order they will be given: runs, of which the first `#taken`
 * ids of the first run are given already.
 */
export class IdQueue {
  /**
   * Of the need of the draw under way (see `IdAllocator.draw`), the ids not taken yet: set when a draw
   * starts, counted down as it takes them.
   */
  owed = 0
  #runs: IdRun[] = []
  #taken = 0
  #size = 0

  /** How many ids are free. */
  get size(): number {
    return this.#size
  }

  /** Adds ids after the free ones. */
  push(run: IdRun): void {
    const n = runLength(run)
    if (n === 0) return
    this.#runs.push(run)
    this.#size += n
  }

  /**
   * Takes the next free id (none: undefined), as a decimal text (`asText`) or a number: one id without
   * a run made for it.
   */
  takeOne(asText: boolean): string | number | undefined {
    if (this.#size === 0) return undefined
    const run = this.#runs[0]!
    const i = this.#taken
    const id =
      run.texts !== undefined
        ? asText
          ? run.texts[i]!
          : Number(run.texts[i]!)
        : asText
          ? String(run.first + i)
          : run.first + i
    this.#size--
    const rest = runLength(run) - i - 1
    if (rest === 0) {
      this.#runs.shift()
      this.#taken = 0
    } else if (run.texts !== undefined && (i + 1) * 2 >= run.texts.length) {
      // As in `take`: the texts given are not kept.
      this.#runs[0] = partOf(run, i + 1, rest)
      this.#taken = 0
    } else this.#taken = i + 1
    return id
  }

  /** Takes the next `n` free ids (at most {@link size}), as runs in order. */
  take(n: number): IdRun[] {
    const out: IdRun[] = []
    let left = Math.min(n, this.#size)
    this.#size -= left
    while (left > 0) {
      const run = this.#runs[0]!
      const rest = runLength(run) - this.#taken
      const k = Math.min(left, rest)
      out.push(k === runLength(run) ? run : partOf(run, this.#taken, k))
      left -= k
      if (k === rest) {
        this.#runs.shift() // few runs: a block per fetch
        this.#taken = 0
      } else {
        this.#taken += k
        // The texts given are not kept: after a large flush, the pool does not hold them.
        if (run.texts !== undefined && this.#taken * 2 >= run.texts.length) {
          this.#runs[0] = partOf(run, this.#taken, rest - k)
          this.#taken = 0
        }
      }
    }
    return out
  }
}

/** The ids of `runs` one after the other, as decimal texts. */
export function runTexts(runs: readonly IdRun[]): string[] {
  const out: string[] = []
  for (const run of runs) {
    if (run.texts !== undefined) for (const text of run.texts) out.push(text)
    else for (let i = 0; i < run.count; i++) out.push(String(run.first + i))
  }
  return out
}
