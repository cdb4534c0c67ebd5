import type { PgTable } from 'drizzle-orm/pg-core'

/** The keys of the schema object `S` that hold tables (`'books' | 'authors'`). */
export type TableKey<S> = { [K in keyof S]: S[K] extends PgTable ? K : never }[keyof S] & string

/** Table `K` of the schema object `S`. */
export type TableAt<S, K> = K extends keyof S ? (S[K] extends PgTable ? S[K] : never) : never

/** The table of `S` an entity `E` is of (by the table name its type carries). */
export type TableOfEntity<S, E> =
  E extends EntityBrand<infer N>
    ? {
        [K in TableKey<S>]: S[K] extends { readonly _: { readonly name: N } } ? TableAt<S, K> : never
      }[TableKey<S>]
    : never

/** The key of table `T` in the schema object `S`. */
export type KeyOfTable<S, T> = {
  [K in TableKey<S>]: S[K] extends T ? (T extends S[K] ? K : never) : never
}[TableKey<S>]

/** The property names of table `T`'s columns (`'id' | 'authorId'`). */
export type ColumnKey<T> = T extends { readonly $inferSelect: infer R } ? keyof R & string : never

declare const entityOf: unique symbol

/**
 * What marks an entity of the table named `N` in the types (nothing at run time): exported by name,
 * so that a type holding an entity can be written out by the compiler (declaration files of an
 * application's own modules that return entities).
 *
 * @example
 * const brand: EntityBrand<'book'> = em.create(books, { title: 'Notes', authorId: ada })
 */
export type EntityBrand<N> = { readonly [entityOf]: N }

/**
 * A tracked row of table `T`: Drizzle's `$inferSelect` of the table (its property names, the values
 * Drizzle gives for each column as declared), and assigning a property is a change the next flush
 * writes. The `entityOf` brand exists only in the types: entities of different tables, and plain
 * objects, are not interchangeable.
 *
 * @example
 * const book: Entity<typeof books> = em.create(books, { title: 'Notes', authorId: ada })
 * book.title = 'Final notes'
 */
export type Entity<T> = T extends { readonly $inferSelect: infer R; readonly _: { readonly name: infer N } }
  ? R & EntityBrand<N>
  : never

/** An entity of any table. */
export type AnyEntity = EntityBrand<string>

/**
 * The value a column accepts on create and assign: its own type, or, when the column takes numbers or
 * bigints (serial, identity and bigint keys), an entity standing for its primary key, resolved at
 * flush once a new entity's id is assigned. (A uuid column also takes an entity: see
 * {@link ColumnRefOr}.)
 */
export type RefOr<V> = [Extract<V, number | bigint>] extends [never] ? V : V | AnyEntity

/** The Drizzle column type (`'PgUUID'`, `'PgText'`...) of property `K` of table `T`. */
type ColumnTypeOf<T, K> = T extends { readonly _: { readonly columns: infer C } }
  ? K extends keyof C
    ? C[K] extends { readonly _: { readonly columnType: infer CT } }
      ? CT
      : never
    : never
  : never

/** The Drizzle column types of floating-point numbers, which no key is. */
type FloatColumnType = 'PgReal' | 'PgDoublePrecision'

/**
 * {@link RefOr} of property `K` of table `T`, a uuid column also taking an entity (an upserted row's
 * key is known only once the flush answers: a row that exists keeps its stored key, so a new row
 * references it by the entity, looked up by its conflict values in the same round trip), a `real` or
 * `doublePrecision` column none. Which table's entity a foreign key takes is checked when the flush
 * is planned (`INVALID_VALUE`, nothing sent): Drizzle's column types do not carry what they reference.
 */
export type ColumnRefOr<T, K, V> = [ColumnTypeOf<T, K>] extends ['PgUUID']
  ? V | AnyEntity
  : [ColumnTypeOf<T, K>] extends [FloatColumnType]
    ? V
    : RefOr<V>

/**
 * What `create(table, values)` takes: Drizzle's `$inferInsert` (columns with defaults, `$defaultFn`,
 * generated or nullable columns optional), a key-like value also accepting an entity.
 *
 * @example
 * const values: CreateValues<typeof books> = { title: 'Notes', authorId: ada }
 */
export type CreateValues<T extends PgTable> = {
  [K in keyof T['$inferInsert']]: ColumnRefOr<T, K, T['$inferInsert'][K]>
}

/**
 * What `assign(entity, values)` takes: any columns of the table Drizzle inserts (not a generated
 * column or a `GENERATED ALWAYS` identity), refs accepted. A property given as `undefined` is left
 * as it is (as Drizzle's `update().set()` leaves it), so a `Partial<typeof table.$inferInsert>` patch
 * is taken under `exactOptionalPropertyTypes` too.
 */
export type AssignValues<T> = T extends {
  readonly $inferSelect: infer R
  readonly $inferInsert: infer I
}
  ? { [K in keyof R as K extends keyof I ? K : never]?: ColumnRefOr<T, K, R[K]> | undefined }
  : never

/**
 * One condition of {@link Where}: a value, a list meaning any of them, or null meaning IS NULL. An
 * array column's value is itself an array (equality). Not distributed over `V`'s union: a list of an
 * enum's or a boolean's values may mix them (`['paid', 'shipped']`, `[true, false]`).
 */
export type Condition<V> = [NonNullable<V>] extends [readonly unknown[]] ? V : V | readonly V[]

/**
 * What `find(table, where)` takes: property = value (an array means any of, null means IS NULL),
 * conditions joined with AND. Where a key may be, an entity stands for its key (as in `create`).
 *
 * @example
 * const where: Where<typeof books> = { authorId: [1, 2], publisherId: null }
 * const byAuthor: Where<typeof books> = { authorId: ada } // ada: Entity<typeof authors>
 */
export type Where<T extends PgTable> = {
  readonly [K in keyof T['$inferSelect']]?: Condition<ColumnRefOr<T, K, T['$inferSelect'][K]>>
}

/** The property of `T`'s column declared `.primaryKey()` (never when the table's config declares its key). */
type PrimaryKeyProperty<T extends PgTable> = {
  [K in keyof T['_']['columns']]: T['_']['columns'][K] extends { readonly _: { readonly isPrimaryKey: true } }
    ? K
    : never
}[keyof T['_']['columns']] &
  keyof T['$inferSelect']

/**
 * A primary key: the value of the column declared `.primaryKey()`, as Drizzle reads it (or an object
 * of that one property); for a key the table's config declares (`primaryKey({ columns })`, which the
 * types do not carry), one value or an object of the key's properties, checked when the load runs.
 *
 * @example
 * em.load(books, 7) // books.id: integer().primaryKey()
 * em.load(bookTags, { bookId: 7, tagId: 2 }) // primaryKey({ columns: [t.bookId, t.tagId] })
 */
export type KeyOf<T extends PgTable> = [PrimaryKeyProperty<T>] extends [never]
  ? string | number | bigint | Partial<T['$inferSelect']>
  : T['$inferSelect'][PrimaryKeyProperty<T>] | Pick<T['$inferSelect'], PrimaryKeyProperty<T>>
