import type { ExtractTablesWithRelations, FindTableByDBName, Many } from 'drizzle-orm'

/** The relational config Drizzle extracts from schema object `S` (its tables and their `relations()`). */
export type Config<S> = ExtractTablesWithRelations<S & Record<string, unknown>>

/**
 * The relations table `K` of schema `S` declares with Drizzle's `relations()`, by name (`One` or
 * `Many`); `never` when it declares none.
 */
export type DeclaredRelations<S, K> = K extends keyof Config<S> ? Config<S>[K]['relations'] : never

/** The key of the table relation `R` reaches. */
export type TargetKey<S, R> = R extends { readonly referencedTableName: infer N extends string }
  ? FindTableByDBName<Config<S>, N> extends { tsName: infer U }
    ? U
    : never
  : never

/** The relations of table `K` that give many rows (`many()`): those `$count` counts. */
export type ManyName<S, K> = {
  [R in keyof DeclaredRelations<S, K>]: DeclaredRelations<S, K>[R] extends Many<string> ? R : never
}[keyof DeclaredRelations<S, K>] &
  string
