/**
 * The schema model: plain data describing the tables pipeflush may write. Read from `pg_catalog`
 * by {@link readSchema} or declared in code by {@link defineSchema}; never mutated after creation.
 */

/** A PostgreSQL base type pipeflush knows how to validate, encode and decode. */
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

/** Every {@link ScalarType} but `enum`: the built-in types pipeflush knows by name. */
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
  readonly name: string
  /** The base type; for arrays, the element type. */
  readonly type: ScalarType
  /** SQL spelling of the full column type for casts, e.g. `int8`, `"public"."mood"`, `text[]`. */
  readonly sqlType: string
  readonly isArray: boolean
  readonly nullable: boolean
  /** True when the column has a DEFAULT expression, is an identity column or is generated. */
  readonly hasDefault: boolean
  /** `always` columns need `OVERRIDING SYSTEM VALUE` when pipeflush supplies the value. */
  readonly identity: 'always' | 'by default' | null
  /** Qualified, quoted sequence name feeding this column (identity or serial), if any. */
  readonly sequence: string | null
  /** Generated (stored) columns are never written. */
  readonly generated: boolean
  /** Labels of an enum type, in order. */
  readonly enumLabels?: readonly string[]
  /** varchar(n)/bpchar(n) length limit, if any. */
  readonly maxLength?: number
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
}

export interface UniqueModel {
  readonly name: string
  readonly columns: readonly string[]
}

export interface TableModel {
  /** The key users write: the bare name for tables in the first schema of the search path, else `schema.table`. */
  readonly key: string
  readonly schema: string
  readonly name: string
  /** Quoted, qualified name for SQL, e.g. `"public"."book"`. */
  readonly sqlName: string
  /** Columns in table order. */
  readonly columns: readonly ColumnModel[]
  readonly columnsByName: ReadonlyMap<string, ColumnModel>
  /** Primary key columns, in key order. Tables without one cannot be written by pipeflush. */
  readonly primaryKey: readonly string[]
  readonly foreignKeys: readonly ForeignKeyModel[]
  readonly uniques: readonly UniqueModel[]
  /** Optimistic-lock version column (integer, incremented by pipeflush on every update), if configured. */
  readonly versionColumn: string | null
}

export interface SchemaModel {
  readonly tables: ReadonlyMap<string, TableModel>
}
