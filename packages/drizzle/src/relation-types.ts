import type { Direction, ReadOptions, With } from '@pipeflush/core'
import type { Equal, Many } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { CheckedTree } from './checked-tree.ts'
import type { DeclaredRelations, ManyName, TargetKey } from './declared-relations.ts'
import type { ColumnKey, Entity, KeyOfTable, TableAt, TableKey, TableOfEntity, Where } from './types.ts'

/**
 * A `with` tree from table `K` of schema `S`: each relation the table declares with `relations()`,
 * `true` or the tree of its table (with which of its rows to read: {@link RelationTree}), and
 * `$count`: its `many()` relations to count per row (`em.countOf`). A relation the table does not
 * declare does not compile. A table that declares none takes any tree (the relations pipeflush
 * derives from its foreign keys, checked when the read starts: `UNKNOWN_RELATION`).
 *
 * @example
 * const tree: WithTree<typeof schema, 'authors'> = { books: { reviews: true }, $count: ['books'] }
 */
export type WithTree<S, K> = [DeclaredRelations<S, K>] extends [never]
  ? With
  : {
      readonly [R in keyof DeclaredRelations<S, K>]?:
        | true
        | RelationTree<S, TargetKey<S, DeclaredRelations<S, K>[R]>, DeclaredRelations<S, K>[R]>
    } & { readonly $count?: readonly ManyName<S, K>[] | undefined }

/** An ordering of table `T`'s rows by property: `{ updatedAt: 'desc' }`, or several as an array of such. */
export type TypedOrderBy<T> =
  | { readonly [P in ColumnKey<T>]?: Direction }
  | readonly { readonly [P in ColumnKey<T>]?: Direction }[]

/**
 * The tree of relation `Rel` reaching table `U`: its own relations (a {@link WithTree}), and which of
 * its rows to read: `$where` (conditions on `U`'s properties, as `find`'s), and for a `many()`
 * `$orderBy` (by `U`'s properties; navigation follows it) and `$limit` (at most this many per parent
 * row).
 *
 * @example
 * const reviews: RelationTree<typeof schema, 'reviews'> = { $where: { stars: [4, 5] }, $orderBy: { id: 'desc' }, $limit: 3 }
 */
export type RelationTree<S, U, Rel = Many<string>> = WithTree<S, U> & {
  readonly $where?: Where<Extract<TableAt<S, U>, PgTable>> | undefined
} & (Rel extends Many<string>
    ? { readonly $orderBy?: TypedOrderBy<TableAt<S, U>> | undefined; readonly $limit?: number | undefined }
    : unknown)

/** Read options (`with`, `lock`) from table `K`. */
export type TypedReadOptions<S, K, W = WithTree<S, K>> = Omit<ReadOptions, 'with'> & {
  readonly with?: (W & NoInfer<CheckedTree<W, S, K>>) | undefined
}

/**
 * Find options from table `K`: a read's, and the roots' order (by property; the primary key breaks
 * ties), limit and offset.
 *
 * @example
 * const page: TypedFindOptions<typeof schema, 'books'> = { orderBy: { updatedAt: 'desc' }, limit: 20, offset: 40 }
 */
export type TypedFindOptions<S, K, W = WithTree<S, K>> = TypedReadOptions<S, K, W> & {
  readonly orderBy?: TypedOrderBy<TableAt<S, K>> | undefined
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

/**
 * An entity of table `K` with the relations of `with` tree `W` loaded: a `one()` as the entity (or
 * null where Drizzle's relational queries say so), a `many()` as a list, each with its own subtree.
 */
export type Loaded<S, K, W> = [keyof W & keyof DeclaredRelations<S, K>] extends [never]
  ? Entity<TableOf<S, K>>
  : Entity<TableOf<S, K>> & {
      readonly [R in keyof W & keyof DeclaredRelations<S, K>]: RelatedOf<S, DeclaredRelations<S, K>[R], W[R]>
    }

type RelatedOf<S, Rel, Sub> =
  Loaded<S, TargetKey<S, Rel>, Sub extends object ? Sub : unknown> extends infer E
    ? Rel extends Many<string>
      ? E[]
      :
          | E
          | (Rel extends { readonly isNullable: infer N }
              ? Equal<N, false> extends true
                ? null
                : never
              : null)
    : never

/** Table `K` of `S` as a table type. */
export type TableOf<S, K> = TableAt<S, K>

/** The entities `find(table, where, { with })` gives for table `T` of `S`. */
export type Found<S, T extends PgTable, W> = Loaded<S, KeyOfTable<S, T>, W>

/** The relation names the table of entity `E` declares. */
export type RelationName<S, E> = keyof DeclaredRelations<S, KeyOfTable<S, TableOfEntity<S, E>>> & string

/** What relation `R` of the table of entity `E` gives once loaded: its entities, or its entity (or null). */
export type Related<S, E, R extends string> = R extends keyof DeclaredRelations<
  S,
  KeyOfTable<S, TableOfEntity<S, E>>
>
  ? RelatedOf<S, DeclaredRelations<S, KeyOfTable<S, TableOfEntity<S, E>>>[R], unknown>
  : never

export type { DeclaredRelations, ManyName, TableKey }
