import { recordArgument } from './arguments.ts'
import { reservationError } from './connection/connection-errors.ts'
import { localSettingsText } from './connection/local-settings.ts'
import type { Driver } from './drivers/driver.ts'
import { isDriverError } from './drivers/driver-errors.ts'
import { driverFor } from './drivers/driver-for.ts'
import { errors } from './errors.ts'
import { checkFlushLog, flushLogSqlName } from './flush/flush-log.ts'
import { flushHooksOption } from './hooks/flush-hooks.ts'
import { IdAllocator } from './ids/id-allocator.ts'
import type { SchemaModel } from './model/model.ts'
import {
  copyRowsOption,
  type EntityManagerOptions,
  flushTimeoutOption,
  idBlockSizeOption,
  pipelineOption,
  prefetchIdsOption,
  prepareOption,
  readSchemaOption,
  serverValuesOption,
} from './options.ts'
import { IDENTITY_SQL, identityOf, type ServerIdentity } from './read/replicas.ts'
import { builtByAnotherCopy, isSchemaModel } from './schema/build-table.ts'
import { type CatalogSchema, cachedSchema } from './schema/cached-schema.ts'
import { keyFills } from './schema/key-fill.ts'
import { pickVersionColumn } from './schema/read-schema.ts'
import type { ClientCatalog, ClientSettings } from './settings.ts'
import { describeValue } from './values/location.ts'

const allocators = new WeakMap<Driver, IdAllocator>()

/** The sequences pipeflush draws primary keys from (a key of its own or part of one), each once. */
function sequenceKeys(schema: SchemaModel): string[] {
  const out = new Set<string>()
  for (const table of schema.tables.values()) {
    if (table.kind !== 'table') continue
    for (const column of keyFills(table).sequence) out.add(column.sequence!)
  }
  return [...out]
}

/** What `connect`'s own queries may take at least, whatever `flushTimeoutMs` (see `connectClient`). */
const CONNECT_MIN_MS = 10_000

/** The limit of `connect`'s own queries, as their QUERY_TIMEOUT names it. */
const CONNECT_LIMIT = `connect's own queries wait flushTimeoutMs, at least ${CONNECT_MIN_MS} ms`

/**
 * A failure of `connect`'s own queries as a coded error, as a read's would be (a driver's error is
 * not one): no connection, or a connection lost, as a reservation's; a statement refused as a read's.
 */
function connectError(e: unknown, timeoutMs: number): unknown {
  if (!isDriverError(e)) return e
  return e.kind === 'connection'
    ? reservationError(e, { what: 'Connecting', timeoutMs, limit: CONNECT_LIMIT })
    : errors.queryFailed('Connecting', e)
}

/**
 * Checks `options` (before any I/O), then reads what the client's entity managers share: the schema
 * (once per client and options, unless declared in code), the flush log table (checked), and for a
 * pipelining node-postgres pool whether statements may be named (a pooler check, one query).
 *
 * Done once at connect, so that `fork()` costs no query.
 */
export async function connectClient(client: unknown, given: unknown): Promise<ClientSettings> {
  const options = recordArgument(
    given,
    'EntityManager.connect: the options',
    'INVALID_CONFIG',
  ) as EntityManagerOptions
  checkOptionNames(options)
  pipelineOption(options.pipeline)
  // Each of connect's own queries settles within it, as a read does (QUERY_TIMEOUT), but never sooner
  // than CONNECT_MIN_MS: a first connection and the catalog read take longer than a flush.
  const timeoutMs = Math.max(flushTimeoutOption(options.flushTimeoutMs), CONNECT_MIN_MS)
  const blockSize = idBlockSizeOption(options.idBlockSize)
  const prepare = prepareOption(options.prepare)
  const prefetchIds = prefetchIdsOption(options.prefetchIds)
  const copyRows = copyRowsOption(options.copyRows)
  readSchemaOption(options)
  serverValuesOption(options.serverValues, undefined)
  flushHooksOption(options.hooks, undefined)
  const flushLog = options.flushLog === undefined ? undefined : flushLogSqlName(options.flushLog)
  if (options.schema !== undefined && builtByAnotherCopy(options.schema)) {
    throw errors.invalidConfig(
      'schema was made by another copy of @pipeflush/core than the one connecting: two versions are installed (npm ls @pipeflush/core shows them); install one version of @pipeflush/core and the @pipeflush packages made for it.',
    )
  }
  if (options.schema !== undefined && !isSchemaModel(options.schema)) {
    throw errors.invalidConfig(
      `schema must be a model made by defineSchema() or readSchema(), not ${describeValue(options.schema)}.`,
    )
  }
  if (options.schema !== undefined) checkAgreesWithSchema(options, options.schema)
  const driver = driverFor(client)
  // A client the application ended (after an earlier connect: its schema is cached, and a schema
  // declared in code needs no query) is refused now, not handed out for every flush to fail.
  const admitted = driver.admit()
  if (typeof admitted !== 'function') throw connectError(admitted, timeoutMs)
  admitted()
  const source =
    options.schema === undefined ? await cachedSchema(driver, options, timeoutMs, CONNECT_LIMIT) : undefined
  const schema = options.schema ?? source!.latest
  const serverValues = serverValuesOption(options.serverValues, schema)
  const hooks = flushHooksOption(options.hooks, schema)
  if (options.flushLog !== undefined)
    await checkFlushLog({ query: (text) => driver.query(text, [], timeoutMs) }, options.flushLog).catch(
      (e: unknown) => {
        throw connectError(e, timeoutMs)
      },
    )
  let ids = allocators.get(driver)
  if (!ids) {
    ids = new IdAllocator({ blockSize })
    allocators.set(driver, ids)
  }
  const named =
    prepare ??
    (driver.pipelines
      ? !(await driver.detectPooler(timeoutMs).catch((e: unknown) => {
          throw connectError(e, timeoutMs)
        }))
      : false)
  // Reading the schema makes queries anyway: one more fills the id pool for every sequence key, so
  // the first flushes fetch no ids. (A schema declared in code connects without any query.)
  if (prefetchIds ?? !options.schema)
    await ids
      .prefetch(
        (text) => driver.query(`${localSettingsText(options.localSettings)}${text}`, [], timeoutMs),
        sequenceKeys(schema),
      )
      .catch(() => {})
  const preparedBurst = prepare === true && driver.pipelines
  const settings: Omit<ClientSettings, 'catalog'> = {
    driver,
    schema,
    ids,
    named,
    preparedBurst,
    flushLog,
    serverValues,
    hooks,
    copyRows: driver.copies ? copyRows : Number.POSITIVE_INFINITY,
  }
  if (source === undefined) return { ...settings, catalog: undefined }
  return clientCatalog(source, options, settings).settingsFor(schema)
}

/**
 * The catalog `source` as the settings of a client connected with `options` see it (`first`: those
 * made at connect): a later read's settings made once per schema read (the last kept), the options
 * naming tables (`serverValues`, `hooks`) checked against it again.
 */
function clientCatalog(
  source: CatalogSchema,
  options: EntityManagerOptions,
  first: Omit<ClientSettings, 'catalog'>,
): ClientCatalog {
  let made: ClientSettings | undefined
  const catalog: ClientCatalog = {
    source,
    settingsFor(schema) {
      if (made?.schema === schema) return made
      if (schema === first.schema) {
        made = { ...first, catalog }
        return made
      }
      try {
        const serverValues = serverValuesOption(options.serverValues, schema)
        const hooks = flushHooksOption(options.hooks, schema)
        made = { ...first, schema, serverValues, hooks, catalog }
      } catch {
        // An option names a table the new schema lacks: the schema they had, until the options change.
        made ??= { ...first, catalog }
      }
      return made
    },
  }
  return catalog
}

/**
 * With a schema given (`schema`), the catalog is not read: `names` is refused, and `versionColumn`
 * and `relationNames` must say what the schema says (as they do when it is one read before with the same options), else they
 * are refused rather than left without effect (a `versionColumn` beside a schema of `defineSchema`
 * checked no version).
 */
function checkAgreesWithSchema(options: EntityManagerOptions, schema: SchemaModel): void {
  const { versionColumn, relationNames } = options
  if (options.names !== undefined)
    throw errors.invalidConfig(
      "names renames what the catalog holds, and the schema given (`schema`) is not read again: give readSchema its `names`, or name the columns in defineSchema (a column's `name`).",
    )
  if (versionColumn !== undefined) {
    const tables = typeof versionColumn === 'string' ? [...schema.tables.keys()] : Object.keys(versionColumn)
    for (const key of tables) {
      const table = schema.tables.get(key)
      const wanted =
        table === undefined
          ? undefined
          : table.kind === 'table'
            ? pickVersionColumn(key, table.columns, versionColumn)
            : null
      if (table !== undefined && wanted === table.versionColumn) continue
      throw errors.invalidConfig(
        `versionColumn says ${describeValue(wanted)} for table "${key}", and the schema given (\`schema\`, not read again) says ${describeValue(table?.versionColumn)}: declare each table's version column in defineSchema (a table's \`version\`), or give readSchema its \`versionColumn\`.`,
      )
    }
  }
  if (
    relationNames !== undefined &&
    JSON.stringify(relationNames) !== JSON.stringify(schema.relationNames ?? {})
  )
    throw errors.invalidConfig(
      'relationNames differs from the schema given (`schema`, not read again): give defineSchema (or readSchema) its `relationNames`.',
    )
}

/** The options `EntityManager.connect` takes (see `EntityManagerOptions`). */
const OPTION_NAMES: ReadonlySet<string> = new Set([
  'pipeline',
  'schema',
  'schemas',
  'versionColumn',
  'relationNames',
  'idBlockSize',
  'prefetchIds',
  'flushTimeoutMs',
  'flushLog',
  'prepare',
  'serverValues',
  'hooks',
  'copyRows',
  'errorValues',
  'tracing',
  'logger',
  'replicas',
  'maxReplicaLagMs',
  'localSettings',
  'names',
])

/**
 * Refuses an option `connect` does not know (`INVALID_CONFIG`, naming the closest it knows): a
 * misspelled one (`pipline`) would otherwise be dropped, and its default taken, without a word.
 */
function checkOptionNames(options: object): void {
  for (const name of Object.keys(options)) {
    if (OPTION_NAMES.has(name)) continue
    const near = [...OPTION_NAMES].find((known) => editDistance(known.toLowerCase(), name.toLowerCase()) <= 2)
    throw errors.invalidConfig(
      `EntityManager.connect: unknown option "${name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; the options are ${[...OPTION_NAMES].join(', ')}.`,
    )
  }
}

/** The Levenshtein distance of two short names. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = row
  }
  return previous[b.length]!
}

/**
 * The primary's identity (its database, its cluster), which each replica's is compared with as it
 * answers its first read (see `ReplicaSet.answered`): one query at connect, only with replicas.
 */
export async function primaryIdentity(driver: Driver, given: EntityManagerOptions): Promise<ServerIdentity> {
  const timeoutMs = Math.max(flushTimeoutOption(given.flushTimeoutMs), CONNECT_MIN_MS)
  const [row] = await driver.query(IDENTITY_SQL, [], timeoutMs).catch((e: unknown) => {
    throw connectError(e, timeoutMs)
  })
  const identity = identityOf(row)
  if (identity === undefined) throw errors.internal('primaryIdentity', 'the primary named no database')
  return identity
}
