/**
 * The `performance.now()` by which work given `timeoutMs` must settle (Infinity: no limit). The wait
 * for a connection counts: a flush or a read settles within its timeout, whatever it waited for.
 *
 * @example
 * deadlineOf(30_000) // performance.now() + 30000
 */
export function deadlineOf(timeoutMs: number): number {
  return Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
}
