import { errors, type PipeflushError } from '../errors.ts'
import type {
  ColumnModel,
  ForeignKeyModel,
  RelationKind,
  ScalarType,
  SchemaModel,
  TableModel,
  UniqueModel,
} from '../model/model.ts'
import { BUILTIN_SCALAR_TYPES } from '../model/model.ts'
import { typeSqlName } from '../values/cast.ts'
import { quoteIdentifier } from '../values/identifier.ts'
import { buildColumnModel, buildSchemaModel, buildTableModel } from './build-table.ts'
import { makeObjectName, ownedSequence } from './owned-sequence.ts'
import type {
  CheckedSchemaSpec,
  ColumnOptions,
  ColumnSpec,
  ColumnSpecInput,
  DefineSchemaOptions,
  ForeignKeySpec,
  SchemaSpec,
  SqlColumnSpec,
  TableSpec,
} from './schema-spec.ts'
import { parseSqlType } from './sql-type.ts'

const TYPE_PATTERN = /^([a-z0-9]+)(?:\((\d+)\))?(\[\])?$/
const SCALAR_TYPES: ReadonlySet<string> = new Set([...BUILTIN_SCALAR_TYPES, 'enum'])
const INTEGER_TYPES: ReadonlySet<string> = new Set(['int2', 'int4', 'int8'])
const RELATION_KINDS: ReadonlySet<string> = new Set<RelationKind>(['table', 'view', 'materialized view'])
function configError(table: string, message: string, column?: string): PipeflushError {
  return errors.tableConfig(table, message, column)
}

/** The properties of each part of a spec (see `schema-spec.ts`). */
const TABLE_KEYS = ['kind', 'columns', 'primaryKey', 'foreignKeys', 'uniques', 'version', 'schema', 'name']
const COLUMN_KEYS = [
  'type',
  'sql',
  'nullable',
  'default',
  'identity',
  'sequence',
  'serial',
  'generated',
  'generatedFrom',
  'name',
  'mapping',
  'enumLabels',
  'sqlType',
  'text',
]
const FOREIGN_KEY_KEYS = [
  'columns',
  'references',
  'targetColumns',
  'name',
  'deferrable',
  'initiallyDeferred',
  'onDelete',
]
const UNIQUE_KEYS = ['columns', 'name', 'nullsNotDistinct']
const OPTION_KEYS = ['schema', 'relationNames']

/**
 * `INVALID_CONFIG` for a property of `spec` (`what`, of table `table`) none of `names`: misspelled, it
 * would be dropped without a word (a `foreignKey` list: no foreign key, and inserts out of order).
 */
function checkSpecKeys(
  spec: object,
  names: readonly string[],
  table: string,
  what: string,
  column?: string,
): void {
  for (const name in spec) {
    if (!Object.hasOwn(spec, name) || names.includes(name)) continue
    throw configError(
      table,
      `${what} has no property "${name}"; its properties are ${names.join(', ')}.`,
      column,
    )
  }
}

/** PostgreSQL's default constraint name, with a numeric suffix when already taken in the schema. */
function defaultConstraintName(
  table: string,
  columns: readonly string[],
  label: string,
  used: Set<string>,
): string {
  const name2 = columns.join('_')
  for (let pass = 0; ; pass++) {
    const name = makeObjectName(table, name2, pass === 0 ? label : `${label}${pass}`)
    if (!used.has(name)) return name
  }
}

function quoteQualified(name: string, defaultSchema: string): string {
  if (name.includes('"')) return name
  const parts = name.split('.')
  return (parts.length === 1 ? [defaultSchema, name] : parts).map(quoteIdentifier).join('.')
}

function buildColumn(
  table: string,
  schema: string,
  tableName: string,
  name: string,
  input: ColumnSpecInput,
): ColumnModel {
  const spec: ColumnSpec = typeof input === 'string' ? { type: input } : input
  if (typeof spec === 'object' && spec !== null)
    checkSpecKeys(spec, COLUMN_KEYS, table, `column "${name}"`, name)
  if (spec.sql !== undefined) return buildSqlColumn(table, schema, tableName, name, spec)
  const match = TYPE_PATTERN.exec(spec.type)
  const type = match?.[1]
  if (match === null || type === undefined || !SCALAR_TYPES.has(type)) {
    throw configError(table, `column "${name}" has an unknown type "${spec.type}".`, name)
  }
  const scalar = type as ScalarType
  const isArray = match[3] !== undefined
  const maxLength = match[2] === undefined ? undefined : Number(match[2])
  if (maxLength !== undefined && scalar !== 'varchar' && scalar !== 'bpchar') {
    throw configError(table, `column "${name}": only varchar and bpchar take a length.`, name)
  }
  if (
    scalar === 'enum' &&
    (spec.enumLabels === undefined || spec.enumLabels.length === 0 || spec.sqlType === undefined)
  ) {
    throw configError(table, `enum column "${name}" needs enumLabels and sqlType.`, name)
  }
  let sqlType: string | undefined
  if (spec.sqlType !== undefined)
    sqlType = isArray && !spec.sqlType.endsWith('[]') ? `${spec.sqlType}[]` : spec.sqlType
  return buildColumnModel({
    name,
    type: scalar,
    // Casting text to varchar(n) would silently truncate; the unsized type lets the column's
    // assignment cast reject values that are too long.
    sqlType,
    isArray,
    ...columnOptions(table, schema, tableName, name, spec, INTEGER_TYPES.has(scalar) && !isArray),
    enumLabels: spec.enumLabels,
    maxLength,
  })
}

/** A column declared by its SQL type (see {@link SqlColumnSpec}). */
function buildSqlColumn(
  table: string,
  schema: string,
  tableName: string,
  name: string,
  spec: SqlColumnSpec,
): ColumnModel {
  const parsed = typeof spec.sql === 'string' ? parseSqlType(spec.sql) : 'not a string'
  if (typeof parsed === 'string') {
    throw configError(
      table,
      `column "${name}" has a type pipeflush cannot read, "${String(spec.sql)}": ${parsed}.`,
      name,
    )
  }
  const integer = parsed.kind === 'known' && INTEGER_TYPES.has(parsed.type) && !parsed.isArray
  const options = columnOptions(table, schema, tableName, name, spec, integer)
  if (parsed.kind === 'known' && spec.text !== true) return buildColumnModel({ name, ...parsed, ...options })
  const other: { castType: string; inputTypmod?: number | undefined; arrayDelimiter?: string | undefined } =
    parsed.kind === 'known' ? { castType: typeSqlName('pg_catalog', parsed.type) } : parsed
  return buildColumnModel({
    name,
    type: 'other',
    sqlType: spec.sql.trim(),
    castType: other.castType,
    inputTypmod: other.inputTypmod,
    arrayDelimiter: other.arrayDelimiter,
    isArray: parsed.isArray,
    ...options,
  })
}

/** Nullability, default, identity, sequence and generated of a declared column, checked. */
function columnOptions(
  table: string,
  schema: string,
  tableName: string,
  name: string,
  spec: ColumnOptions,
  integer: boolean,
) {
  if (spec.identity !== undefined && !integer) {
    throw configError(table, `identity column "${name}" must be int2, int4 or int8.`, name)
  }
  if (spec.identity !== undefined && spec.generated === true) {
    throw configError(table, `column "${name}" cannot be both identity and generated.`, name)
  }
  const from = spec.generatedFrom
  if (from !== undefined && (!Array.isArray(from) || from.some((c) => typeof c !== 'string'))) {
    throw configError(table, `column "${name}": generatedFrom must list column names.`, name)
  }
  if (spec.name !== undefined && (typeof spec.name !== 'string' || spec.name === '')) {
    throw configError(table, `column "${name}": its name in the database must be a non-empty string.`, name)
  }
  const dbName = spec.name ?? name
  const identity = spec.identity ?? null
  if (spec.serial === true && !integer) {
    throw configError(table, `serial column "${name}" must be int2, int4 or int8.`, name)
  }
  const sequence =
    spec.sequence !== undefined
      ? quoteQualified(spec.sequence, schema)
      : identity !== null || spec.serial === true
        ? ownedSequence(schema, tableName, dbName)
        : null
  return {
    dbName,
    nullable: spec.nullable ?? false,
    hasDefault: spec.default === true || identity !== null || sequence !== null || spec.generated === true,
    identity,
    sequence,
    generated: spec.generated ?? false,
    generatedFrom: from,
    mapping: spec.mapping,
  }
}

/** The database names of `columns` of a table spec (a column's `name`, else its key), for default constraint names. */
function dbNames(spec: TableSpec, columns: readonly string[]): string[] {
  return columns.map((column) => {
    const input = (spec.columns as Readonly<Record<string, ColumnSpecInput | undefined>>)[column]
    return typeof input === 'object' && typeof input.name === 'string' ? input.name : column
  })
}

interface TablePlace {
  readonly key: string
  readonly schema: string
  readonly name: string
  readonly spec: TableSpec
}

function placeTable(key: string, spec: TableSpec, defaultSchema: string): TablePlace {
  if (typeof spec === 'object' && spec !== null) checkSpecKeys(spec, TABLE_KEYS, key, 'the table')
  const dot = key.indexOf('.')
  const schema = spec.schema ?? (dot >= 0 ? key.slice(0, dot) : defaultSchema)
  const name = spec.name ?? (dot >= 0 ? key.slice(dot + 1) : key)
  if (schema === '' || name === '') throw configError(key, 'the schema and table names cannot be empty.')
  return { key, schema, name, spec }
}

function buildForeignKey(
  place: TablePlace,
  fk: ForeignKeySpec,
  places: ReadonlyMap<string, TablePlace>,
  used: Set<string>,
): ForeignKeyModel {
  checkSpecKeys(fk, FOREIGN_KEY_KEYS, place.key, `a foreign key on (${String(fk.columns)})`)
  const target = places.get(fk.references)
  if (target === undefined) {
    throw configError(
      place.key,
      `foreign key on (${fk.columns.join(', ')}) references unknown table "${fk.references}".`,
    )
  }
  const targetColumns = fk.targetColumns ?? target.spec.primaryKey ?? []
  if (fk.initiallyDeferred === true && fk.deferrable === false) {
    throw configError(
      place.key,
      `foreign key on (${fk.columns.join(', ')}) cannot be initially deferred but not deferrable.`,
    )
  }
  const name = fk.name ?? defaultConstraintName(place.name, dbNames(place.spec, fk.columns), 'fkey', used)
  used.add(name)
  return {
    name,
    columns: [...fk.columns],
    target: fk.references,
    targetColumns: [...targetColumns],
    deferrable: fk.deferrable ?? fk.initiallyDeferred ?? false,
    initiallyDeferred: fk.initiallyDeferred ?? false,
    onDelete: fk.onDelete ?? 'no action',
  }
}

function buildTable(
  place: TablePlace,
  places: ReadonlyMap<string, TablePlace>,
  used: Set<string>,
): TableModel {
  const { key, spec } = place
  const kind = spec.kind ?? 'table'
  if (!RELATION_KINDS.has(kind)) throw configError(key, `unknown kind "${String(kind)}".`)
  const primaryKey = spec.primaryKey ?? []
  if (kind === 'table' && primaryKey.length === 0) throw configError(key, 'a primary key is required.')
  if (kind !== 'table' && (spec.foreignKeys?.length ?? 0) + (spec.uniques?.length ?? 0) > 0) {
    throw configError(key, `a ${kind} has no foreign keys or unique constraints pipeflush uses.`)
  }
  const columns = Object.entries<ColumnSpecInput>(spec.columns).map(([name, column]) =>
    buildColumn(key, place.schema, place.name, name, column),
  )
  const uniques: UniqueModel[] = (spec.uniques ?? []).map((unique) => {
    if (!Array.isArray(unique)) checkSpecKeys(unique, UNIQUE_KEYS, key, 'a unique constraint')
    const columns: readonly string[] = 'columns' in unique ? unique.columns : unique
    const name =
      ('name' in unique ? unique.name : undefined) ??
      defaultConstraintName(place.name, dbNames(spec, columns), 'key', used)
    used.add(name)
    const nullsNotDistinct = 'nullsNotDistinct' in unique && unique.nullsNotDistinct === true
    return nullsNotDistinct
      ? { name, columns: [...columns], nullsNotDistinct }
      : { name, columns: [...columns] }
  })
  const foreignKeys = (spec.foreignKeys ?? []).map((fk) => buildForeignKey(place, fk, places, used))
  return buildTableModel({
    kind,
    key,
    schema: place.schema,
    name: place.name,
    columns,
    primaryKey,
    foreignKeys,
    uniques,
    versionColumn: spec.version ?? null,
  })
}

/**
 * Declares a schema in code instead of reading it from `pg_catalog`. A string column is shorthand for a
 * NOT NULL column of that type; a column of any other type is declared by its SQL name (`{ sql: 'inet' }`,
 * see {@link SqlColumnSpec}); foreign keys reference tables by key and default to the target's primary
 * key; constraint names default to PostgreSQL's. An inconsistent spec throws `INVALID_CONFIG`.
 * Columns keep the spec's order, which should be the table's order (JavaScript lists integer-like
 * property names first: avoid column names such as `"1"`).
 *
 * @example
 * const schema = defineSchema({
 *   author: {
 *     columns: { id: { type: 'int8', identity: 'by default' }, name: 'text', version: { type: 'int4', default: true } },
 *     primaryKey: ['id'],
 *     version: 'version',
 *   },
 *   book: {
 *     columns: { id: 'uuid', author_id: 'int8', title: { type: 'text', nullable: true }, tags: 'text[]', isbn: { sql: 'public.isbn13' } },
 *     primaryKey: ['id'],
 *     foreignKeys: [{ columns: ['author_id'], references: 'author', onDelete: 'cascade' }],
 *   },
 * })
 * schema.tables.get('book')?.foreignKeys[0]?.name // 'book_author_id_fkey'
 */
export function defineSchema<const S extends SchemaSpec>(
  spec: S & CheckedSchemaSpec<S>,
  options: DefineSchemaOptions = {},
): SchemaModel {
  for (const name in options) {
    if (Object.hasOwn(options, name) && !OPTION_KEYS.includes(name))
      throw errors.invalidConfig(
        `defineSchema: unknown option "${name}"; the options are ${OPTION_KEYS.join(', ')}.`,
      )
  }
  const defaultSchema = options.schema ?? 'public'
  const places = new Map<string, TablePlace>()
  for (const [key, table] of Object.entries<TableSpec>(spec))
    places.set(key, placeTable(key, table, defaultSchema))
  const usedBySchema = new Map<string, Set<string>>()
  const used = (schema: string): Set<string> => {
    let names = usedBySchema.get(schema)
    if (names === undefined) {
      names = new Set()
      usedBySchema.set(schema, names)
    }
    return names
  }
  // Explicit names first, so that a default name never takes one the spec gives later.
  for (const place of places.values()) {
    for (const fk of place.spec.foreignKeys ?? []) {
      if (fk.name === undefined) continue
      if (used(place.schema).has(fk.name))
        throw configError(place.key, `constraint name "${fk.name}" is used twice.`)
      used(place.schema).add(fk.name)
    }
    for (const unique of place.spec.uniques ?? []) {
      const name = 'name' in unique ? unique.name : undefined
      if (name === undefined) continue
      if (used(place.schema).has(name))
        throw configError(place.key, `constraint name "${name}" is used twice.`)
      used(place.schema).add(name)
    }
  }
  const tables = [...places.values()].map((place) => buildTable(place, places, used(place.schema)))
  return buildSchemaModel(tables, options.relationNames)
}
