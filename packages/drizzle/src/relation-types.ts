import type { ReadOptions, With } from '@pipeflush/core'
import type { Equal, ExtractTablesWithRelations, FindTableByDBName, Many } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { Entity, KeyOfTable, TableAt, TableKey, TableOfEntity } from './types.ts'

type Config<S> = ExtractTablesWithRelations<S & Record<string, unknown>>

/**
 * The relations table `K` of schema `S` declares with Drizzle's `relations()`, by name (`One` or
 * `Many`); `never` when it declares none.
 */
export type DeclaredRelations<S, K> = K extends keyof Config<S> ? Config<S>[K]['relations'] : never

/** The key of the table relation `R` reaches. */
type TargetKey<S, R> = R extends { readonly referencedTableName: infer N extends string }
  ? FindTableByDBName<Config<S>, N> extends { tsName: infer U }
    ? U
    : never
  : never

/**
 * A `with` tree from table `K` of schema `S`: each relation the table declares with `relations()`,
 * `true` or the tree of its table; a relation it does not declare does not compile. A table that
 * declares none takes any tree (the relations pipeflush derives from its foreign keys, checked when
 * the read starts: `UNKNOWN_RELATION`).
 *
 * @example
 * const tree: WithTree<typeof schema, 'authors'> = { books: { reviews: true } }
 */
export type WithTree<S, K> = [DeclaredRelations<S, K>] extends [never]
  ? With
  : {
      readonly [R in keyof DeclaredRelations<S, K>]?:
        | true
        | WithTree<S, TargetKey<S, DeclaredRelations<S, K>[R]>>
    }

/** Read options (`with`, `lock`) from table `K`. */
export type TypedReadOptions<S, K, W = WithTree<S, K>> = Omit<ReadOptions, 'with'> & { readonly with?: W }

/**
 * An entity of table `K` with the relations of `with` tree `W` loaded: a `one()` as the entity (or
 * null where Drizzle's relational queries say so), a `many()` as a list, each with its own subtree.
 */
export type Loaded<S, K, W> = Entity<TableOf<S, K>> &
  ([DeclaredRelations<S, K>] extends [never]
    ? unknown
    : {
        readonly [R in keyof W & keyof DeclaredRelations<S, K>]: RelatedOf<
          S,
          DeclaredRelations<S, K>[R],
          W[R]
        >
      })

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

export type { TableKey }
