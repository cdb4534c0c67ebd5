import type { Insertable, InsertType, Selectable, SelectQueryBuilder, Updateable, UpdateType } from 'kysely'

/**
 * The table names of a Kysely database interface `DB` (as written by hand or by kysely-codegen).
 * Tables outside the first schema of the search path are keyed `schema.table`, as in Kysely.
 */
export type TableName<DB> = keyof DB & string

/** The column names of table `T`. */
export type ColumnName<DB, T extends TableName<DB>> = keyof Selectable<DB[T]> & string

/** A row of table `T` as pipeflush reads it: Kysely's `Selectable` (`Generated<X>` reads as `X`). */
export type Row<DB, T extends TableName<DB>> = Selectable<DB[T]>

declare const entityOf: unique symbol

/**
 * A tracked row of table `T`: its columns are plain properties, and assigning one is a change the next
 * flush writes. The `entityOf` brand exists only in the types (entities of different tables, and
 * plain objects, are not interchangeable).
 *
 * @example
 * const book: TypedEntity<DB, 'book'> = em.create('book', { title: 'Notes', author_id: ada })
 * book.title = 'Final notes'
 */
export type TypedEntity<DB, T extends TableName<DB>> = Row<DB, T> & { readonly [entityOf]: T }

/** An entity of any table of `DB`. */
export type AnyEntity<DB> = { [T in TableName<DB>]: TypedEntity<DB, T> }[TableName<DB>]

/**
 * The value a column accepts on create and assign: its own type, or, when the column takes numbers or
 * bigints (serial, identity and int8 keys), an entity standing for its primary key, resolved at flush
 * once a new entity's id is assigned. (A created row's uuid key is made at create: pass `entity.id`.
 * An upserted row's key is known only once the flush answers, whatever its type: pass the entity, cast
 * for a uuid column, whose type in `DB` is a string like any text's.)
 */
export type RefOr<DB, V> = [Extract<V, number | bigint>] extends [never] ? V : V | AnyEntity<DB>

/**
 * What `create(table, values)` takes: Kysely's `Insertable` (columns with defaults, `Generated<>`
 * and nullable columns are optional), each key-like value also accepting an entity.
 *
 * @example
 * const values: CreateValues<DB, 'book'> = { title: 'Notes', author_id: ada } // id is Generated: optional
 */
export type CreateValues<DB, T extends TableName<DB>> = {
  [K in keyof Insertable<DB[T]>]: RefOr<DB, Insertable<DB[T]>[K]>
}

/** What `assign(entity, values)` takes: Kysely's `Updateable` (every column optional), refs accepted. */
export type AssignValues<DB, T extends TableName<DB>> = {
  [K in keyof Updateable<DB[T]>]?: RefOr<DB, Updateable<DB[T]>[K]>
}

/**
 * One condition of {@link Where}: a value, a list meaning any of them, or null meaning IS NULL. An
 * array column's value is itself an array (equality). Not distributed over `V`'s union: a list of an
 * enum's or a boolean's values may mix them (`['paid', 'shipped']`, `[true, false]`).
 */
export type Condition<V> = [NonNullable<V>] extends [readonly unknown[]] ? V : V | readonly V[]

/**
 * What `find(table, where)` takes: column = value (an array means any of, null means IS NULL),
 * conditions joined with AND.
 *
 * @example
 * const where: Where<DB, 'book'> = { author_id: [1, 2], published_on: null }
 */
export type Where<DB, T extends TableName<DB>> = {
  readonly [K in keyof Row<DB, T>]?: Condition<WhereValue<DB, T, K>>
}

/**
 * A value {@link Where} takes for column `K`: the column's type as read, or an entity for a key-like
 * column. An `Int8` column reads as a string, yet is written from bigints (and numbers), so an entity
 * stands for its key there too; a `Numeric` one, written from numbers but never bigints, is no key.
 */
export type WhereValue<DB, T extends TableName<DB>, K extends keyof Row<DB, T>> =
  | RefOr<DB, Row<DB, T>[K]>
  | (K extends keyof DB[T] ? KeyRef<DB, InsertType<DB[T][K]> | UpdateType<DB[T][K]>> : never)

/** An entity of `DB` when `V` takes bigints (an `Int8`, key-like column), else `never`. */
type KeyRef<DB, V> = [Extract<V, bigint>] extends [never] ? never : AnyEntity<DB>

/** A primary key: one value, or an object of the key columns for composite keys. */
export type KeyOf<DB, T extends TableName<DB>> = string | number | bigint | Partial<Row<DB, T>>

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never

/**
 * A Kysely select over exactly one table `T` of `DB`, selecting every column (`selectAll()`): what
 * `em.load(query)` takes. A join, or a selection missing a column, is a type error.
 */
export type EntityQuery<DB, T extends TableName<DB>, O> = SelectQueryBuilder<DB, T, O> &
  (IsUnion<T> extends true ? { readonly 'load(query) takes a select over one table': never } : unknown)

/**
 * The table of `DB` whose row type is `Aliased` (what Kysely's `selectFrom('book as b')` puts under
 * the alias `b`): `never` when none is, a union when several tables have that very row type.
 */
export type TableOfRow<DB, Aliased> = {
  [T in TableName<DB>]: [DB[T]] extends [Aliased] ? ([Aliased] extends [DB[T]] ? T : never) : never
}[TableName<DB>]

/**
 * A Kysely select over exactly one table of `DB` under an alias (`selectFrom('book as b')`),
 * selecting every column: what `em.load(query)` takes besides an {@link EntityQuery}; its entities are
 * of the table `TableOfRow<DB, QDB[A]>`.
 */
export type AliasedEntityQuery<DB, QDB, A extends keyof QDB & string, O> = SelectQueryBuilder<QDB, A, O> &
  (IsUnion<A> extends true
    ? { readonly 'load(query) takes a select over one table': never }
    : [TableOfRow<DB, QDB[A]>] extends [never]
      ? { readonly 'load(query) takes a select over one table of the database': never }
      : unknown)
