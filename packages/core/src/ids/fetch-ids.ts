import { errors } from '../errors.ts'
import type { IdAllocator, IdQuery } from './id-allocator.ts'

/**
 * Fills the id pool through `query` (on the flush's connection, before its transaction) until it
 * holds `need`: other flushes share the pool and may take ids meanwhile, hence more than one fetch
 * (each a round trip, each block larger) under contention. The flush then takes its ids
 * (`assignIds`) in the same tick as the last fetch's answer.
 *
 * A sequence that has fewer values left than the flush needs (it does not cycle, and is near its
 * MAXVALUE, or its MINVALUE counting down) gives none: `SEQUENCE_EXHAUSTED`, before anything is sent,
 * naming it and `tablesOf` it (the tables whose new rows draw from it).
 */
export async function fetchIds(
  query: IdQuery,
  ids: IdAllocator,
  need: ReadonlyMap<string, number>,
  tablesOf: (sequence: string) => readonly string[] = () => [],
): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const short = ids.missing(need)
    if (short.size === 0) break
    const needed = new Map<string, number>()
    for (const [seq, n] of need) {
      const lacking = n - ids.available(seq)
      if (lacking > 0) needed.set(seq, lacking)
    }
    await ids.fill(query, short, needed)
    for (const [seq, n] of need) {
      const pooled = ids.available(seq)
      const left = ids.leftIn(seq)
      if (pooled < n && left !== undefined && pooled + left < n)
        throw errors.sequenceExhausted(seq, tablesOf(seq), n, pooled, left)
    }
  }
}
