/**
 * The schema model: plain data describing the tables pipeflush may write. Read from `pg_catalog`
 * by {@link readSchema} or declared in code by {@link defineSchema}; never mutated after creation.
 */

/**
 * How the values of a column travel: a PostgreSQL type pipeflush knows how to validate, encode and
 * decode (`int8`, `timestamptz`, ..., `enum`), or `other`: every other type with a text input (inet,
 * interval, ranges, tsvector, extension types such as citext...), whose values are the type's text
 * form as strings, checked by the server.
 */
export type ScalarType =
  | 'int2'
  | 'int4'
  | 'int8'
  | 'numeric'
  | 'float4'
  | 'float8'
  | 'text'
  | 'varchar'
  | 'bpchar'
  | 'bool'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'uuid'
  | 'json'
  | 'jsonb'
  | 'bytea'
  | 'enum'
  | 'other'

/** Every {@link ScalarType} but `enum` and `other`: the built-in types pipeflush knows by name. */
export const BUILTIN_SCALAR_TYPES: ReadonlySet<string> = new Set<ScalarType>([
  'int2',
  'int4',
  'int8',
  'numeric',
  'float4',
  'float8',
  'text',
  'varchar',
  'bpchar',
  'bool',
  'date',
  'timestamp',
  'timestamptz',
  'uuid',
  'json',
  'jsonb',
  'bytea',
])

export interface ColumnModel {
  /**
   * The name entities, `where` conditions, errors and every other part of the API use for the column:
   * its name in the database unless {@link dbName} says otherwise.
   */
  readonly name: string
  /**
   * The column's name in the database when the API calls it otherwise (a property name: `authorId`
   * for `author_id`, declared with `defineSchema`'s column `name`). SQL uses it; nothing else does.
   */
  readonly dbName?: string
  /** How values travel (for arrays, the element's); a domain column takes the type its domain is over. */
  readonly type: ScalarType
  /** SQL spelling of the column type, e.g. `int8`, `public.mood`, `text[]`, `inet`, `public.email`. */
  readonly sqlType: string
  /**
   * For `enum` and `other` columns: the type a text value is cast to, quoted where needed, without
   * typmod and without `[]` (`inet`, `"bit"`, `"public"."citext"`). For a domain, the type it is over
   * (the assignment to the column then checks the domain; an explicit cast to a domain over
   * `varchar(n)` or `bit(n)` would truncate silently). Defaults to {@link sqlType} without `[]`.
   */
  readonly castType?: string
  /**
   * The typmod the type's input function must read the text with, when a cast from `text` would read
   * it differently: `interval` with fields or precision (`interval year` reads `'1'` as a year, a cast
   * to `interval` as a second). Such values are converted by `interval_in` instead of a cast.
   */
  readonly inputTypmod?: number
  /** The element delimiter of the array's text form when not a comma (`;` for `box[]`). */
  readonly arrayDelimiter?: string
  /**
   * The column's type (or its element type) is a domain: values are cast to the type it is over, and
   * comparisons cast the column to that type too (PostgreSQL has no `=` between a domain over an enum,
   * or an array of a domain, and the base type).
   */
  readonly isDomain?: boolean
  readonly isArray: boolean
  readonly nullable: boolean
  /** True when the column has a DEFAULT expression, is an identity column or is generated. */
  readonly hasDefault: boolean
  /** `always` columns need `OVERRIDING SYSTEM VALUE` when pipeflush supplies the value. */
  readonly identity: 'always' | 'by default' | null
  /**
   * The sequence that fills this column, qualified and quoted (`public.customer_customer_id_seq`): its
   * identity sequence, a serial column's (OWNED BY), or the one its DEFAULT is a `nextval` of, owned
   * or not. A new row leaving out a key column filled by a sequence gets an id pipeflush draws from it.
   */
  readonly sequence: string | null
  /**
   * The session's role may not draw from {@link sequence} (it has neither USAGE nor UPDATE on it, as
   * read at connect): pipeflush draws no ids from it. A new row leaving such a key column out is
   * filled by the server when it is an identity column (an identity needs no privilege on its
   * sequence) and read back; otherwise the flush fails before sending (the server would refuse too).
   */
  readonly sequenceDenied?: true
  /** Generated (stored) columns are never written. */
  readonly generated: boolean
  /**
   * A generated column's inputs: the columns its expression reads, when known (read from the
   * catalog, or declared). Where the column is part of the primary key, changing one of them changes
   * a stored row's key, which is refused as changing the key is (see {@link TableModel.keyInputs}).
   */
  readonly generatedFrom?: readonly string[]
  /**
   * Set on a column of its table's primary key (by `buildTableModel`): a timestamp read for it keeps
   * the microseconds its Date drops, so that the row is found again by its key.
   */
  readonly keyPart?: true
  /** Labels of an enum type, in order. */
  readonly enumLabels?: readonly string[]
  /** varchar(n)/bpchar(n) length limit, if any (of each element, for an array). */
  readonly maxLength?: number
  /**
   * A `timestamp(p)` or `timestamptz(p)`'s precision (fractional digits of a second it keeps), when
   * below a Date's milliseconds (0 to 2): a primary key's Date the server would round is refused.
   */
  readonly timePrecision?: number
  /**
   * A `numeric(p,s)`'s precision and scale (of each element, for an array): a value that, rounded to
   * the scale as the server rounds it, has more than `precision` digits is refused before it is sent.
   */
  readonly numericTypmod?: NumericTypmod
  /**
   * How the application's values of the column differ from pipeflush's own (its type's, see the
   * README's values table), when they do: entities hold, and every part of the API takes and gives,
   * the application's values; pipeflush validates, encodes, compares and keys what `write` makes of
   * them, and hands each value it decoded to `read`. A column with a mapping is compared in place at
   * every flush (its values may be objects changed without an assignment).
   */
  readonly mapping?: ValueMapping
}

/** The precision and scale of a `numeric(p,s)` column (scale may be negative from PostgreSQL 15). */
export interface NumericTypmod {
  readonly precision: number
  readonly scale: number
}

/**
 * A column's own value representation over pipeflush's (see {@link ColumnModel.mapping}): a pair of
 * functions, pure, each the inverse of the other for the values they are given.
 *
 * @example
 * // a bigint column the application holds as numbers (pipeflush reads int8 as decimal strings)
 * const asNumber: ValueMapping = { read: (v) => Number(v), write: (v) => v }
 */
export interface ValueMapping {
  /** The application's value for a (non-null) value pipeflush decoded from the column. */
  readonly read: (value: unknown) => unknown
  /**
   * A value of pipeflush's for a (non-null, defined) application value: what is validated and
   * encoded. Throws for a value it cannot map (reported as `INVALID_VALUE`); null writes SQL NULL.
   */
  readonly write: (value: unknown) => unknown
}

export type OnDeleteAction = 'no action' | 'restrict' | 'cascade' | 'set null' | 'set default'

export interface ForeignKeyModel {
  readonly name: string
  readonly columns: readonly string[]
  /** Key of the referenced table in {@link SchemaModel.tables}. */
  readonly target: string
  readonly targetColumns: readonly string[]
  readonly deferrable: boolean
  readonly initiallyDeferred: boolean
  readonly onDelete: OnDeleteAction
  /**
   * The names of the constraints it stands for, when the partitions of a partitioned table each
   * declare it (`name` is the first's): a violation names the partition's.
   */
  readonly aliases?: readonly string[] | undefined
}

export interface UniqueModel {
  readonly name: string
  readonly columns: readonly string[]
  /** `UNIQUE NULLS NOT DISTINCT`: a NULL equals a NULL (two rows of NULLs conflict). */
  readonly nullsNotDistinct?: boolean | undefined
  /**
   * A unique index with no constraint (`CREATE UNIQUE INDEX`): ordered as a constraint is (unique
   * values handed on in a flush, errors naming its columns), but it does not make a relation
   * one-to-one, so that relation names stay what they were before such indexes were read.
   */
  readonly index?: boolean | undefined
}

/**
 * What a relation of the schema is: a table (partitioned or not), whose rows pipeflush writes, or a
 * view or materialized view, whose rows it only reads (`find`, `load(query)`): rows that cannot be
 * flushed.
 */
export type RelationKind = 'table' | 'view' | 'materialized view'

export interface TableModel {
  /** A table, or a view or materialized view (read-only: see {@link RelationKind}). */
  readonly kind: RelationKind
  /** The key users write: the bare name for tables in the first schema of the search path, else `schema.table`. */
  readonly key: string
  readonly schema: string
  readonly name: string
  /** Quoted, qualified name for SQL, e.g. `"public"."book"`. */
  readonly sqlName: string
  /** Columns in table order. */
  readonly columns: readonly ColumnModel[]
  readonly columnsByName: ReadonlyMap<string, ColumnModel>
  /**
   * Primary key columns, in key order. Tables without one cannot be written by pipeflush; a view has
   * none unless declared in code (its rows are then tracked by it, still read-only).
   */
  readonly primaryKey: readonly string[]
  readonly foreignKeys: readonly ForeignKeyModel[]
  readonly uniques: readonly UniqueModel[]
  /** Optimistic-lock version column (integer, incremented by pipeflush on every update), if configured. */
  readonly versionColumn: string | null
  /**
   * Whether large inserts into it may be sent as `COPY ... FROM STDIN` (see the `copyRows` option):
   * false when row-level security is enabled on it (COPY FROM refuses such tables) or it has rewrite
   * rules (COPY ignores them, INSERT runs them). A schema declared in code says true.
   */
  readonly copyable: boolean
  /**
   * The role that read the schema may not SELECT from the table (granted INSERT only: an audit log,
   * an outbox): its inserts read nothing back (`RETURNING` needs SELECT), whatever `serverValues`
   * says, and the columns the server fills stay unread in its entities. Read from the catalog; a
   * schema declared in code says nothing.
   */
  readonly selectDenied?: true
  /**
   * The columns a generated primary key column is computed from (see {@link ColumnModel.generatedFrom}),
   * each with that key column: changing one in a stored row would change its key, so it is refused
   * before anything is sent (`INVALID_STATE`), as an assignment to the key is. Absent when none.
   */
  readonly keyInputs?: ReadonlyMap<string, string>
}

export interface SchemaModel {
  readonly tables: ReadonlyMap<string, TableModel>
  /**
   * New names for the relations derived from the foreign keys (`{ 'author.books': 'works' }`; see
   * `relations.ts`).
   */
  readonly relationNames?: Readonly<Record<string, string>>
  /**
   * The partitions of the partitioned tables read from the catalog (leaves, and partitions partitioned
   * themselves), each by its key (as a table's), to the key of its partitioned table: what pipeflush
   * reads and writes instead.
   */
  readonly partitionOf?: ReadonlyMap<string, string>
  /**
   * How the application names what the catalog holds (the `names` option of `readSchema`): the
   * names of the relations derived from the foreign keys are given through it too (`blog_posts`
   * becomes what it makes of that), as the tables' keys and columns' names were.
   */
  readonly names?: (name: string) => string
}
