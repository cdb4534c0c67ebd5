import { recordArgument } from '../arguments.ts'
import { localSettingsText } from '../connection/local-settings.ts'
import type { Driver } from '../drivers/driver.ts'
import { connectFailure, isDriverError } from '../drivers/driver-errors.ts'
import { driverFor } from '../drivers/driver-for.ts'
import { errors, PipeflushError } from '../errors.ts'
import type {
  ColumnModel,
  ForeignKeyModel,
  NumericTypmod,
  OnDeleteAction,
  RelationKind,
  ScalarType,
  SchemaModel,
  TableModel,
} from '../model/model.ts'
import { BUILTIN_SCALAR_TYPES } from '../model/model.ts'
import { arrayLiteral } from '../values/array-literal.ts'
import { typeSqlName } from '../values/cast.ts'
import { describeValue } from '../values/location.ts'
import { buildColumnModel, buildSchemaModel, buildTableModel } from './build-table.ts'
import { CATALOG_QUERY } from './catalog-query.ts'
import type { CatalogColumn, CatalogForeignKey, CatalogTable } from './catalog-rows.ts'
import { partitionForeignKeys } from './partition-keys.ts'
import { type ReadSchemaOptions, readSchemaOption } from './read-schema-options.ts'

const SCALARS = BUILTIN_SCALAR_TYPES

const ON_DELETE: Readonly<Record<string, OnDeleteAction>> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
}

const KINDS: Readonly<Record<string, RelationKind>> = {
  r: 'table',
  p: 'table',
  v: 'view',
  m: 'materialized view',
}

/** A table's foreign keys: its own, and for a partitioned table those all its partitions declare. */
function catalogForeignKeys(row: CatalogTable): readonly CatalogForeignKey[] {
  if (row.partitions === null || row.partitions === undefined) return row.foreign_keys
  return [...row.foreign_keys, ...partitionForeignKeys(row.foreign_keys, row.partitions)]
}

/**
 * Reads the schema model from pg_catalog in two queries (the search path, then every table, view and
 * materialized view of it: see `CATALOG_QUERY`). Tables of the first schema of the search path are
 * keyed by their bare name, others as `schema.table`. Column types pipeflush does not know (interval,
 * inet, ranges, citext...) are `other` columns: written and read as their text form, cast by the
 * server to the type (for a domain, to the type it is over). A key column's sequence is found from
 * its identity, its OWNED BY or its DEFAULT `nextval(...)`; a partitioned table's foreign keys include
 * those every partition declares; views are read-only relations.
 *
 * @example
 * const schema = await readSchema(sql, { versionColumn: 'version' })
 * schema.tables.get('book')?.primaryKey // ['id']
 */
export function readSchema(client: unknown, given: ReadSchemaOptions = {}): Promise<SchemaModel> {
  return readSchemaWithin(client, given, Number.POSITIVE_INFINITY)
}

/**
 * {@link readSchema}, each query within `timeoutMs` (the wait for a connection included):
 * `QUERY_TIMEOUT` past it, as a read's (`EntityManager.connect` reads the schema within its
 * `flushTimeoutMs`, at least 10 s: `limit` says so in the error).
 */
export async function readSchemaWithin(
  client: unknown,
  given: ReadSchemaOptions,
  timeoutMs: number,
  limit?: string,
): Promise<SchemaModel> {
  return (await readCatalogSchema(client, given, timeoutMs, limit)).schema
}

/**
 * The schemas a schema was read from, as the session resolved them: `current`, whose tables are keyed
 * by their bare name, and every schema read, in the search path's order.
 */
export interface SchemaPath {
  readonly current: string
  readonly schemas: readonly string[]
}

/**
 * {@link readSchemaWithin}, with the schemas it read from (`path`). Given `pinned` (the path of an
 * earlier read), those schemas are read again whatever the search path of the connection that
 * answers: one whose session switched it (a schema per tenant, set per request on a pooled
 * connection) must not move the tables' bare names to another schema.
 */
export async function readCatalogSchema(
  client: unknown,
  given: ReadSchemaOptions,
  timeoutMs: number,
  limit?: string,
  pinned?: SchemaPath,
): Promise<{ readonly schema: SchemaModel; readonly path: SchemaPath }> {
  const options = readSchemaOption(
    recordArgument(given, 'readSchema: the options', 'INVALID_CONFIG') as ReadSchemaOptions,
  )
  const driver: Pick<Driver, 'query'> = isDriver(client) ? client : driverFor(client)
  // Read as the flushes and reads will run: a role's privileges and search path with its settings.
  const set = localSettingsText(options.localSettings)
  let rows: CatalogTable[]
  let current: string
  let schemas: readonly string[]
  try {
    // Everything is selected as text (JSON here) so that no type parser or name transform of the
    // client changes what is read.
    const [path] = await driver.query(
      `${set}select current_schema() as current, array_to_json(current_schemas(false))::text as schemas, current_setting('DateStyle') as datestyle, current_setting('extra_float_digits') as efd, current_setting('array_nulls') as arraynulls, current_setting('search_path') as searchpath`,
      [],
      timeoutMs,
    )
    checkSessionSettings(
      String(path?.['datestyle'] ?? 'ISO'),
      Number(path?.['efd'] ?? 1),
      String(path?.['arraynulls'] ?? 'on'),
    )
    current = pinned?.current ?? String(path?.['current'] ?? 'public')
    schemas =
      pinned?.schemas ??
      options.schemas ??
      (JSON.parse(String(path?.['schemas'] ?? '["public"]')) as string[])
    // An empty search path, or one naming no schema that exists: nothing to read, and every table
    // would be unknown later for a reason no message could tell.
    if (schemas.length === 0) throw errors.noSchemaOnPath(String(path?.['searchpath'] ?? ''))
    const [catalog] = await driver.query(
      `${set}${JIT_OFF};\nselect coalesce(json_agg(c), '[]'::json)::text as catalog from (${CATALOG_QUERY}) as c`,
      [arrayLiteral(schemas)],
      timeoutMs,
    )
    rows = JSON.parse(String(catalog?.['catalog'] ?? '[]')) as CatalogTable[]
  } catch (cause) {
    if (cause instanceof PipeflushError) throw cause
    const failure = isDriverError(cause) ? connectFailure(cause) : undefined
    if (failure !== undefined && isDriverError(cause)) {
      throw errors.cannotConnect(failure, 'Reading the schema', cause.message, {
        sqlState: cause.sqlState,
        cause: cause.cause,
      })
    }
    if (isDriverError(cause) && cause.code === 'DEADLINE')
      throw errors.queryTimeout('Reading the schema', timeoutMs, cause.message, limit)
    // A connection lost is coded as it is for a read or a flush, whatever the query.
    if (isDriverError(cause) && cause.kind === 'connection')
      throw errors.queryFailed('Reading the schema', cause)
    throw errors.schemaReadFailed(cause)
  }
  if (options.schemas !== undefined) checkShadowing(rows, schemas, current)
  const named = applicationNames(options.names)
  const keyOf = (schema: string, name: string) =>
    schema === current ? named(name) : `${named(schema)}.${named(name)}`
  const tables: TableModel[] = rows.map((row) => {
    const key = keyOf(row.schema, row.name)
    const kind = KINDS[row.kind] ?? 'table'
    const columns = row.columns.map((c) => toColumn(c, named))
    const versionColumn = kind === 'table' ? pickVersionColumn(key, columns, options.versionColumn) : null
    const foreignKeys: ForeignKeyModel[] = catalogForeignKeys(row)
      .filter((fk) => schemas.includes(fk.targetSchema))
      .map((fk) => ({
        name: fk.name,
        columns: fk.columns.map(named),
        target: keyOf(fk.targetSchema, fk.targetName),
        targetColumns: fk.targetColumns.map(named),
        deferrable: fk.deferrable,
        initiallyDeferred: fk.initiallyDeferred,
        onDelete: ON_DELETE[fk.onDelete] ?? 'no action',
        ...(fk.aliases === undefined ? {} : { aliases: fk.aliases }),
      }))
    return buildTableModel({
      kind,
      key,
      schema: row.schema,
      name: row.name,
      columns,
      primaryKey: (row.primary_key ?? []).map(named),
      foreignKeys,
      // `index` only where true: a constraint's model is as it was before unique indexes were read.
      uniques: row.uniques.map(({ index, columns, ...unique }) => {
        const renamed = { ...unique, columns: columns.map(named) }
        return index === true ? { ...renamed, index } : renamed
      }),
      versionColumn,
      copyable: row.copy_refused !== true,
      selectDenied: row.select_denied === true,
    })
  })
  checkVersionOption(options.versionColumn, tables)
  const partitionOf = new Map<string, string>()
  for (const row of rows)
    for (const leaf of [...(row.partitions ?? []), ...(row.subpartitioned ?? [])])
      partitionOf.set(keyOf(leaf.schema, leaf.name), keyOf(row.schema, row.name))
  const schema = buildSchemaModel(
    tables,
    options.relationNames,
    partitionOf,
    options.names === undefined ? undefined : named,
  )
  return { schema, path: { current, schemas } }
}

/**
 * Refuses a `versionColumn` that would check no version where the application meant one: a table it
 * names (`{ table: column }`) that the schema does not have (a misspelling, or the database's name of
 * a table keyed otherwise: see `names`), or a column name every table holds under another name (the
 * database's, beside the `names` option). Either would leave optimistic locking off without a word,
 * and concurrent updates would overwrite each other.
 */
function checkVersionOption(option: ReadSchemaOptions['versionColumn'], tables: readonly TableModel[]): void {
  if (option === undefined) return
  const dbNamed = (name: string) =>
    tables.find((t) => t.name === name || `${t.schema}.${t.name}` === name)?.key
  if (typeof option === 'object') {
    for (const key of Object.keys(option)) {
      if (tables.some((t) => t.key === key)) continue
      const known = dbNamed(key)
      throw errors.invalidConfig(
        `versionColumn names "${key}", which is not a table of the schema${known === undefined ? '' : ` (the database's "${key}" is keyed "${known}" here)`}: optimistic locking would be off for the table meant.`,
      )
    }
    return
  }
  if (tables.some((t) => t.columnsByName.has(option))) return
  const renamed = tables.flatMap((t) => t.columns).find((c) => c.dbName === option)
  if (renamed !== undefined)
    throw errors.invalidConfig(
      `versionColumn "${option}" is the database's name of the column named "${renamed.name}" here (the names option): give that name, or optimistic locking would be off.`,
    )
}

/**
 * Refuses a `schemas` option that lists another schema before the session's current one where both
 * hold a relation of the same name: its bare name is the current schema's (keys follow the session,
 * as the SQL an application writes does), which the order given reads as the other's.
 */
function checkShadowing(rows: readonly CatalogTable[], schemas: readonly string[], current: string): void {
  const at = schemas.indexOf(current)
  if (at <= 0) return
  const own = new Set(rows.filter((r) => r.schema === current).map((r) => r.name))
  for (const earlier of schemas.slice(0, at)) {
    const both = rows.filter((r) => r.schema === earlier && own.has(r.name)).map((r) => r.name)
    if (both.length > 0) throw errors.schemasShadowed(current, earlier, both.sort())
  }
}

/**
 * JIT off for the rest of the message's transaction (one implicit transaction: it ends with it), where
 * the server has JIT (a server without the setting reads no row and sets nothing). The catalog query
 * is estimated costly enough to be compiled, which takes most of a second on PostgreSQL's defaults
 * where the query itself takes tens of milliseconds, and failed connect for a role whose
 * statement_timeout is a web request's.
 */
export const JIT_OFF =
  "select pg_catalog.set_config('jit', 'off', true) from pg_catalog.pg_settings where name = 'jit'"

function isDriver(client: unknown): client is Pick<Driver, 'query'> {
  return typeof (client as Driver | null)?.toDriverError === 'function'
}

/**
 * pipeflush reads values as text: dates in the ISO style and floats in their shortest exact form; and
 * writes NULL unquoted in arrays of values (PostgreSQL's defaults). Refuse other session settings up
 * front rather than misread or miswrite values.
 */
function checkSessionSettings(dateStyle: string, extraFloatDigits: number, arrayNulls: string): void {
  if (!dateStyle.toUpperCase().startsWith('ISO')) {
    throw errors.dateStyleNotIso(dateStyle)
  }
  if (extraFloatDigits < 1) {
    throw errors.floatDigitsTooFew(extraFloatDigits)
  }
  // Arrays of values (a statement's rows, an array column) write NULL unquoted.
  if (arrayNulls !== 'on') throw errors.arrayNullsOff()
}

/**
 * The `names` option as a function that checks what it gives: a name, not empty (an application's
 * mapping that returns nothing would key every column alike). The database's names without it.
 */
function applicationNames(names: ReadSchemaOptions['names']): (name: string) => string {
  if (names === undefined) return (name) => name
  return (name) => {
    let given: unknown
    try {
      given = names(name)
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause)
      throw errors.invalidConfig(`names threw for "${name}": ${why}.`, { cause })
    }
    if (typeof given !== 'string' || given === '')
      throw errors.invalidConfig(
        `names gave ${describeValue(given)} for "${name}": it must give each name in the database a name that is not empty.`,
      )
    return given
  }
}

/**
 * The model of column `c`, named by the application as `named` gives (`dbName` its name in the
 * database where they differ), the columns it is generated from too.
 */
function toColumn(c: CatalogColumn, named: (name: string) => string): ColumnModel {
  const name = named(c.name)
  const catalog = c.baseSchema === 'pg_catalog'
  const known = catalog && SCALARS.has(c.baseName)
  const type: ScalarType = c.baseTyptype === 'e' ? 'enum' : known ? (c.baseName as ScalarType) : 'other'
  // The column's own type (a domain's name for a domain), pg_catalog types by their plain name.
  const own = c.qualifiedElemType ?? c.qualifiedType
  const sqlType =
    (own.startsWith('pg_catalog.') ? own.slice('pg_catalog.'.length) : own) +
    (c.qualifiedElemType !== null ? '[]' : '')
  const maxLength = (type === 'varchar' || type === 'bpchar') && c.typmod > 4 ? c.typmod - 4 : undefined
  const castType = type === 'enum' || type === 'other' ? typeSqlName(c.baseSchema, c.baseName) : undefined
  // A cast from text reads an interval without its fields (`'1'` is a second even for `interval year`).
  const inputTypmod =
    type === 'other' && catalog && c.baseName === 'interval' && c.typmod !== -1 ? c.typmod : undefined
  return buildColumnModel({
    name,
    dbName: c.name,
    type,
    sqlType,
    castType,
    inputTypmod,
    arrayDelimiter: c.isArray && c.delimiter !== ',' ? c.delimiter : undefined,
    isDomain: c.isDomain,
    isArray: c.isArray,
    nullable: c.nullable,
    hasDefault: c.hasDefault || c.identity !== '' || c.generated !== '',
    identity: c.identity === 'a' ? 'always' : c.identity === 'd' ? 'by default' : null,
    sequence: c.sequence,
    sequenceDenied: c.sequence !== null && c.sequenceUsable === false,
    generated: c.generated !== '',
    generatedFrom: c.generatedFrom?.map(named),
    enumLabels: type === 'enum' ? (c.enumLabels ?? []) : undefined,
    maxLength,
    numericTypmod: type === 'numeric' ? numericTypmodOf(c.typmod) : undefined,
    // A timestamp's typmod is its precision (-1: none, 6).
    timePrecision:
      (type === 'timestamp' || type === 'timestamptz') && !c.isArray && c.typmod >= 0 && c.typmod < 3
        ? c.typmod
        : undefined,
  })
}

/**
 * The precision and scale a `numeric` column's typmod holds (`((p << 16) | (s & 0x7ff)) + 4`, the
 * scale an 11-bit signed number from PostgreSQL 15, which allows negative scales); none for -1.
 */
function numericTypmodOf(typmod: number): NumericTypmod | undefined {
  if (typmod < 4) return undefined
  const t = typmod - 4
  return { precision: (t >> 16) & 0xffff, scale: ((t & 0x7ff) ^ 0x400) - 0x400 }
}

/**
 * The version column of the table `key` by the `versionColumn` option: a column name every table with
 * an integer column of that name has, or one per table; null for none.
 */
export function pickVersionColumn(
  key: string,
  columns: readonly ColumnModel[],
  option: ReadSchemaOptions['versionColumn'],
): string | null {
  if (option === undefined) return null
  if (typeof option === 'string') {
    // Every table with an integer column of that name: a nullable one is taken too, and refused when
    // the table is built (INVALID_CONFIG), rather than left without the check the application asked for.
    const c = columns.find((col) => col.name === option)
    return c && !c.isArray && (c.type === 'int2' || c.type === 'int4' || c.type === 'int8') ? option : null
  }
  return option[key] ?? null
}
