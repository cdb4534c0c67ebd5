import type { OnDeleteAction, RelationKind, ScalarType, ValueMapping } from '../model/model.ts'

type SizedType = `varchar(${number})` | `bpchar(${number})`

/** A column type: a scalar type, optionally sized (`varchar(40)`), optionally an array (`text[]`). */
export type ColumnTypeName = ScalarType | `${ScalarType}[]` | SizedType | `${SizedType}[]`

/** What any declared column may say besides its type. */
export interface ColumnOptions {
  /** Defaults to false (NOT NULL). */
  readonly nullable?: boolean | undefined
  /**
   * The column has a DEFAULT expression (implied by `identity`, `sequence` and `generated`). A key
   * column with a default and no sequence (`my_next_id()`) is filled by the server and read back by
   * the flush; a uuid key column with one gets a uuid v7 at `create`.
   */
  readonly default?: boolean | undefined
  readonly identity?: 'always' | 'by default' | undefined
  /**
   * The sequence feeding the column, e.g. `public.author_id_seq`: an identity's, a serial column's, or
   * the one a `DEFAULT nextval(...)` draws from. A key column (or part of a composite key) with a
   * sequence gets its ids from it at flush. An identity column without it (or a `serial` one) draws
   * from the sequence the server finds for the column, whatever its name. Implies `default`.
   */
  readonly sequence?: string | undefined
  /**
   * A `serial`/`bigserial` column: its ids come from the sequence it owns, which the server finds from
   * the column when ids are drawn (a table renamed since keeps its sequence's old name). Implies
   * `default`; give `sequence` instead for a `DEFAULT nextval(...)` of a sequence the column does not own.
   */
  readonly serial?: boolean | undefined
  /** A generated (stored) column: never written. */
  readonly generated?: boolean | undefined
  /**
   * A generated column's inputs: the columns (their keys in this spec) its expression reads. Given
   * for a generated primary key column, a stored row's change of one of them is refused before it is
   * sent, as a change of the key is (the row's key would change with it). A schema read from the
   * catalog knows them.
   */
  readonly generatedFrom?: readonly string[] | undefined
  /**
   * The column's name in the database, when entities call it otherwise: the spec's key is then the
   * name entities, `where`, conflict lists, foreign keys, errors and hooks use (`authorId`), this one
   * the name SQL uses (`author_id`). Defaults to the key.
   */
  readonly name?: string | undefined
  /**
   * The application's own representation of the column's values, over pipeflush's (see
   * `ColumnModel.mapping`): a bigint held as a number, a timestamp held as the text the server prints...
   */
  readonly mapping?: ValueMapping | undefined
}

/** A column declared in full. A bare {@link ColumnTypeName} is shorthand for `{ type }`: NOT NULL, no default. */
export interface TypedColumnSpec extends ColumnOptions {
  readonly type: ColumnTypeName
  readonly sql?: never | undefined
  /** Labels of an enum type, in order (required for enums). */
  readonly enumLabels?: readonly string[] | undefined
  /** SQL spelling of the type for casts (required for enums, e.g. `"public"."mood"`; `[]` is appended for arrays). */
  readonly sqlType?: string | undefined
}

/**
 * A column of any type, given as SQL writes it: `{ sql: 'inet' }`, `{ sql: 'interval year' }`,
 * `{ sql: 'int4range[]' }`, `{ sql: 'public.citext' }`, `{ sql: 'bigint' }`. Types pipeflush has a
 * codec for, in any spelling (`bigint`, `character varying(40)`, `timestamp with time zone`), are the
 * same as their {@link TypedColumnSpec}; every other type is an `other` column whose values are its
 * text form. The typmod is left to the column (`bit(3)` casts to `"bit"`, so a wrong length is an
 * error, not a truncation), except for intervals, whose fields change how the text reads. For a
 * domain, give the type it is over: an explicit cast to a domain over `varchar(n)` or `bit(n)`
 * truncates silently, and the column's assignment checks the domain anyway.
 *
 * @example
 * defineSchema({ session: { columns: { id: 'uuid', ip: { sql: 'inet' }, ttl: { sql: 'interval', nullable: true } }, primaryKey: ['id'] } })
 */
export interface SqlColumnSpec extends ColumnOptions {
  readonly sql: string
  readonly type?: never | undefined
  /**
   * Values are the type's text form, as for a type pipeflush has no codec for, even when it has one
   * (`{ sql: 'timestamptz', text: true }`: strings, written as given, read as the server prints them,
   * microseconds and time zone included); a 1-D array is an array of its elements' texts.
   */
  readonly text?: boolean | undefined
}

export type ColumnSpec = TypedColumnSpec | SqlColumnSpec

export type ColumnSpecInput = ColumnTypeName | ColumnSpec

export interface ForeignKeySpec<Column extends string = string, Target extends string = string> {
  readonly columns: readonly Column[]
  /** Key of the referenced table in the spec. */
  readonly references: Target
  /** Defaults to the referenced table's primary key. */
  readonly targetColumns?: readonly string[] | undefined
  /** Defaults to PostgreSQL's name, e.g. `book_author_id_fkey`. */
  readonly name?: string | undefined
  /** Defaults to false, or true when `initiallyDeferred`. */
  readonly deferrable?: boolean | undefined
  /** Defaults to false. Only `DEFERRABLE INITIALLY DEFERRED` keys free the planner from ordering inserts. */
  readonly initiallyDeferred?: boolean | undefined
  /** Defaults to `no action`. */
  readonly onDelete?: OnDeleteAction | undefined
}

export interface UniqueSpec<Column extends string = string> {
  readonly columns: readonly Column[]
  /** Defaults to PostgreSQL's name, e.g. `book_isbn_key`. */
  readonly name?: string | undefined
  /** `UNIQUE NULLS NOT DISTINCT` (PostgreSQL 15): a NULL equals a NULL. Defaults to false. */
  readonly nullsNotDistinct?: boolean | undefined
}

export interface TableSpec<Column extends string = string, Target extends string = string> {
  /**
   * `table` (the default), or a `view` or `materialized view`: read-only, read with `find` and
   * `load(query)` (with a `primaryKey`, its rows are tracked by it and `load(view, key)` works).
   */
  readonly kind?: RelationKind | undefined
  /** Columns in table order. */
  readonly columns: Readonly<Record<Column, ColumnSpecInput>>
  /**
   * Required for a table; a view may have one (its rows are then tracked by it). A key column with a
   * `sequence` gets its ids from it, alone or as part of a composite key.
   */
  readonly primaryKey?: readonly Column[] | undefined
  /**
   * For a partitioned table, its partitions' foreign keys are declared here, on the table (partitions
   * are not declared): they order its rows as any other.
   */
  readonly foreignKeys?: readonly ForeignKeySpec<Column, Target>[] | undefined
  readonly uniques?: readonly (readonly Column[] | UniqueSpec<Column>)[] | undefined
  /** Optimistic-lock version column: an integer, NOT NULL. */
  readonly version?: Column | undefined
  /** The PostgreSQL schema; defaults to the part before the dot of a `schema.table` key, else `options.schema`. */
  readonly schema?: string | undefined
  /** The table name; defaults to the key (the part after the dot of a `schema.table` key). */
  readonly name?: string | undefined
}

export type SchemaSpec = Readonly<Record<string, TableSpec>>

/** Ties each table's column and table names to the spec so typos fail to compile. */
export type CheckedSchemaSpec<S> = {
  readonly [K in keyof S]: S[K] extends { readonly columns: infer C }
    ? TableSpec<Extract<keyof C, string>, Extract<keyof S, string>>
    : TableSpec
}

export interface DefineSchemaOptions {
  /** Schema of tables whose key has no dot; defaults to `public`. */
  readonly schema?: string | undefined
  /**
   * New names for relations derived from the foreign keys, by `table.derivedName`:
   * `{ 'author.books': 'works' }` (see `relationsOf` for the names derived).
   */
  readonly relationNames?: Readonly<Record<string, string>> | undefined
}
