import type { Entity, TableAt, TableKey } from './types.ts'

/** The tables of `S` named `N` in the database. */
type Named<S, N> = {
  [K in TableKey<S>]: S[K] extends { readonly _: { readonly name: N } } ? S[K] : never
}[TableKey<S>]

/**
 * The entities `load(query)` gives for a Drizzle select `Q`: those of the table it selects from (by
 * its name), or of any table of `S` when the select names an alias. A select joining tables does not
 * compile.
 */
export type SelectOf<S, Q> = Q extends {
  readonly _: { readonly tableName: infer N; readonly nullabilityMap: infer M }
}
  ? IsUnion<keyof M> extends true
    ? { readonly 'load(query) takes a select from one table': never }
    : [Named<S, N>] extends [never]
      ? { [K in TableKey<S>]: Entity<TableAt<S, K>> }[TableKey<S>]
      : Entity<Named<S, N>>
  : never

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never
