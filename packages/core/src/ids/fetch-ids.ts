import type { IdAllocator, IdQuery } from './id-allocator.ts'

/**
 * Fills the id pool through `query` (on the flush's connection, before its transaction) until it
 * holds `need`: other flushes share the pool and may take ids meanwhile, hence more than one fetch
 * (each a round trip, each block larger) under contention. The flush then takes its ids
 * (`assignIds`) in the same tick as the last fetch's answer.
 */
export async function fetchIds(
  query: IdQuery,
  ids: IdAllocator,
  need: ReadonlyMap<string, number>,
): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const short = ids.missing(need)
    if (short.size === 0) break
    await ids.fill(query, short)
  }
}
