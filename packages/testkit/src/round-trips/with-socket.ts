import type postgres from 'postgres'
import type { RoundTripCounter } from './round-trip-counter.ts'

/**
 * Adds the counter's socket factory to postgres.js options. postgres.js accepts a `socket` option
 * (a function returning a connected socket) that its typings do not declare.
 *
 * @example
 * const sql = postgres(url, withSocket({ max: 1 }, counter))
 */
export function withSocket<T extends postgres.Options<Record<string, postgres.PostgresType>>>(
  options: T,
  counter: RoundTripCounter,
): T {
  return { ...options, socket: counter.socket } as T
}
