import type { Many } from 'drizzle-orm'
import type { DeclaredRelations, TargetKey } from './declared-relations.ts'
import type { ColumnKey, TableAt } from './types.ts'

/**
 * `W`, a `with` tree from table `K` of schema `S`, with every key it may not hold typed `never`: a
 * relation `K` does not declare, a property of `$where` or `$orderBy` its table lacks, `$orderBy` or
 * `$limit` on a `one()`, and `$where`, `$orderBy` or `$limit` on the roots (the read chooses them).
 * A tree is inferred from the call (so that the loaded relations are typed), and an inferred type
 * never has excess properties: intersected with this one, each such key fails to compile where it
 * is written. `Rel` is the relation that reached `K` (`never` for the roots).
 *
 * @example
 * // books declares writer (one) and reviews (many):
 * type T = CheckedTree<{ reviews: { $limit: 2 }; nope: true }, S, 'books'> // { reviews: { $limit: 2 }; nope: never }
 */
export type CheckedTree<W, S, K, Rel = never> = [DeclaredRelations<S, K>] extends [never]
  ? W
  : W extends object
    ? {
        [P in keyof W]: P extends '$count'
          ? W[P]
          : P extends '$where'
            ? [Rel] extends [never]
              ? never
              : OnlyKeys<W[P], ColumnKey<TableAt<S, K>>>
            : P extends '$orderBy'
              ? ManyOnly<Rel, OrderKeys<W[P], ColumnKey<TableAt<S, K>>>>
              : P extends '$limit'
                ? ManyOnly<Rel, W[P]>
                : P extends keyof DeclaredRelations<S, K>
                  ? W[P] extends true
                    ? W[P]
                    : CheckedTree<
                        W[P],
                        S,
                        TargetKey<S, DeclaredRelations<S, K>[P]>,
                        DeclaredRelations<S, K>[P]
                      >
                  : never
      }
    : W

/** `T` where relation `Rel` gives many rows, else `never`. */
type ManyOnly<Rel, T> = [Rel] extends [never] ? never : Rel extends Many<string> ? T : never

/** `V` with each property not among `C` typed `never`. */
type OnlyKeys<V, C> = V extends object ? { [P in keyof V]: P extends C ? V[P] : never } : V

/** An ordering (an object, or an array of such) with each property not among `C` typed `never`. */
type OrderKeys<V, C> = V extends readonly (infer E)[] ? readonly OnlyKeys<E, C>[] : OnlyKeys<V, C>
