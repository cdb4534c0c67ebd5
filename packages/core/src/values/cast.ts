import type { ColumnModel, ScalarType } from '../schema/model.ts'

const BASE_TYPES: Readonly<Record<Exclude<ScalarType, 'enum'>, string>> = {
  int2: 'int2',
  int4: 'int4',
  int8: 'int8',
  numeric: 'numeric',
  float4: 'float4',
  float8: 'float8',
  text: 'text',
  varchar: 'varchar',
  bpchar: 'bpchar',
  bool: 'bool',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  uuid: 'uuid',
  json: 'json',
  jsonb: 'jsonb',
  bytea: 'bytea',
}

/**
 * The SQL type a text element is cast to for `column`: `int8`, `timestamptz[]`, or for enums
 * `column.sqlType` (`"public"."mood"`, `"public"."mood"[]`). Built-in types are cast to their
 * unconstrained base type, never to `varchar(n)`/`char(n)`: an explicit cast to those truncates
 * silently, while the assignment to the column checks the length (and domains are checked there too).
 *
 * @example
 * castSql(priceColumn) // 'numeric'
 * castSql(tagsColumn) // 'varchar[]'
 */
export function castSql(column: ColumnModel): string {
  if (column.type === 'enum') return column.sqlType
  const base = BASE_TYPES[column.type]
  if (base === undefined) throw new TypeError(`pipeflush: no SQL cast for column type ${String(column.type)}`)
  return column.isArray ? `${base}[]` : base
}
