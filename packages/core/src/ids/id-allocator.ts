import { quoteTextArrayLiteral } from '../values/index.ts'

/**
 * The one query that fetches ids for every sequence a flush needs, sequence names and counts written
 * as quoted literals (no parameters).
 *
 * @example
 * fetchIdsSql(['public.author_id_seq'], [50])
 */
export function fetchIdsSql(sequences: readonly string[], counts: readonly number[]): string {
  for (const n of counts) {
    if (!Number.isSafeInteger(n) || n < 1)
      throw new RangeError(`id count must be a positive integer, got ${n}`)
  }
  return `select s.seq, nextval(s.seq::regclass)::text as id from unnest(${quoteTextArrayLiteral(sequences)}, '{${counts.join(',')}}'::int4[]) as s(seq, n), generate_series(1, s.n) as g(i) order by s.seq, g.i`
}

/** Runs one simple-protocol query and answers its rows (on the flush's connection). */
export type IdQuery = (text: string) => Promise<readonly Readonly<Record<string, unknown>>[]>

/**
 * Pooled ids for sequence and identity primary keys, shared by every entity manager of a client. A
 * flush takes ids from the pool; when a sequence runs short, one query fetches a block for every
 * sequence that needs one, so steady-state flushes spend no round trip on ids. Ids come from
 * `nextval`, so they are unique across processes; a process that ends leaves unused ids as gaps.
 *
 * @example
 * const ids = new IdAllocator({ blockSize: 100 })
 * const need = new Map([['public.author_id_seq', 3]])
 * if (ids.missing(need).size > 0) await ids.fill((text) => driver.query(text), ids.missing(need))
 * ids.take(need) // Map { 'public.author_id_seq' => ['1', '2', '3'] }
 */
export class IdAllocator {
  /** Per sequence: fetched ids, of which those from `head` on are still free (a queue without shifting). */
  readonly #pool = new Map<string, { ids: string[]; head: number }>()
  readonly #blockSize: number
  readonly #lastNeed = new Map<string, number>()

  constructor(options: { blockSize?: number } = {}) {
    this.#blockSize = Math.max(1, options.blockSize ?? 50)
  }

  /** Ids available now for `sequence`. */
  available(sequence: string): number {
    const q = this.#pool.get(sequence)
    return q ? q.ids.length - q.head : 0
  }

  /** How many ids must be fetched per sequence to satisfy `need` (empty when the pool suffices). */
  missing(need: ReadonlyMap<string, number>): Map<string, number> {
    const out = new Map<string, number>()
    for (const [seq, n] of need) {
      const short = n - this.available(seq)
      if (short > 0) {
        // Fetch what is short plus a block sized to recent demand, so the next flushes need no fetch.
        const recent = Math.max(n, this.#lastNeed.get(seq) ?? 0)
        out.set(seq, short + Math.max(this.#blockSize, Math.min(recent * 2, 10_000)))
      }
    }
    return out
  }

  /**
   * Fetches `counts` ids per sequence in one query and adds them to the pool: one round
   * trip. The query goes as a simple-protocol query with literal values, so it costs one round trip
   * on a fresh connection too (a prepared statement would be described first: two).
   */
  async fill(query: IdQuery, counts: ReadonlyMap<string, number>): Promise<number> {
    if (counts.size === 0) return 0
    const seqs = [...counts.keys()]
    const rows = (await query(
      fetchIdsSql(
        seqs,
        seqs.map((s) => counts.get(s) ?? 0),
      ),
    )) as readonly { seq: string; id: string }[]
    for (const row of rows) {
      let q = this.#pool.get(row.seq)
      if (!q) {
        q = { ids: [], head: 0 }
        this.#pool.set(row.seq, q)
      } else if (q.head > 0 && q.head * 2 >= q.ids.length) {
        q.ids = q.ids.slice(q.head) // compact now and then, not on every take
        q.head = 0
      }
      q.ids.push(row.id)
    }
    return 1
  }

  /** Takes `need` ids per sequence from the pool (call {@link missing}/{@link fill} first). */
  take(need: ReadonlyMap<string, number>): Map<string, string[]> {
    const out = new Map<string, string[]>()
    for (const [seq, n] of need) {
      const q = this.#pool.get(seq) ?? { ids: [], head: 0 }
      const free = q.ids.length - q.head
      if (free < n) throw new Error(`IdAllocator: ${seq} has ${free} ids, ${n} needed`)
      out.set(seq, q.ids.slice(q.head, q.head + n))
      q.head += n
      this.#lastNeed.set(seq, n)
    }
    return out
  }
}
