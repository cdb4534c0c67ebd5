import type { ColumnModel } from '../model/model.ts'

/**
 * How one scalar type travels as text. Every function may throw a `ValueProblem` (see
 * `location.ts`) except `same`, which never throws.
 */
export interface ScalarCodec {
  /** Validates a JS value and returns the PostgreSQL text input form. */
  encode(value: unknown, column: ColumnModel): string
  /**
   * Validates a JS value as `encode` does, throwing the same problems, without writing its text: for
   * types whose text costs more to write than the value to check (dates, numbers). Absent: `encode`.
   */
  check?(value: unknown, column: ColumnModel): void
  /** Decodes the server's text output (`select col::text`). */
  decode(text: string, column: ColumnModel): unknown
  /** Equality for dirty checking, on decoded or user-assigned values. */
  same(a: unknown, b: unknown, column: ColumnModel): boolean
  /** A canonical string for identity maps; throws when the value cannot be a key. */
  key(value: unknown, column: ColumnModel): string
  /** Orders two strings returned by `key`, the way PostgreSQL orders the values where it can. */
  compareKeys(a: string, b: string, column: ColumnModel): number
}

/** True when `a` and `b` are the same value or share a canonical form; false when either has none. */
export function sameByCanonical(canonical: (v: unknown) => string, a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  try {
    return canonical(a) === canonical(b)
  } catch {
    return false
  }
}

/** -1, 0 or 1. */
export function sign(n: number | bigint): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0
}
