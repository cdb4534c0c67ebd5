import type { Entity, KeyOfTable, TableAt, TableKey } from './types.ts'

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

/**
 * The key in `S` of the table a Drizzle select `Q` reads (`'books'`); `never` for an alias, or a
 * select joining tables.
 */
export type SelectKey<S, Q> = Q extends {
  readonly _: { readonly tableName: infer N; readonly nullabilityMap: infer M }
}
  ? IsUnion<keyof M> extends true
    ? never
    : KeyOfTable<S, Named<S, N>>
  : never

/**
 * What a Drizzle select `Q` gives, as Drizzle types it (`db.select({ n: count() }).from(books)`:
 * `{ n: number }[]`): the rows of `em.select(query)`.
 */
export type SelectResult<Q> = Q extends { readonly _: { readonly result: infer R } } ? R : never

/** Anything Drizzle's pg-core `db.select()...` builds, as `load` and `select` take it. */
export type AnySelect = { readonly _: { readonly tableName: string | undefined } }

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never
