import type { Driver } from '../drivers/driver.ts'
import type { SchemaModel } from '../model/model.ts'
import { readCatalogSchema, type SchemaPath } from './read-schema.ts'
import type { ReadSchemaOptions } from './read-schema-options.ts'

/** The shortest time between two reads of the catalog a failing statement asks for (see `readSoon`). */
export const SCHEMA_REREAD_MIN_MS = 5_000

/**
 * The schema a client's entity managers read from the catalog (per client and options), and read again
 * when the database changed under them: `readAgain` on demand (`EntityManager.refreshSchema`),
 * `readSoon` when a statement failed the way a changed table fails (a column or table gone, a type
 * changed). `latest` is the last schema read; entity managers made from then on use it, those already
 * made keep theirs (their entities are of its tables).
 */
export class CatalogSchema {
  readonly #driver: Driver
  readonly #options: ReadSchemaOptions
  readonly #timeoutMs: number
  readonly #limit: string | undefined
  /** The schemas the first read resolved from the session's search path: every later read reads them. */
  readonly #path: SchemaPath
  #latest: SchemaModel
  /** The read under way, if any: one at a time. */
  #reading: Promise<SchemaModel> | undefined
  /** When the last read after the first began (`performance.now()`). */
  #readAt: number

  constructor(
    driver: Driver,
    options: ReadSchemaOptions,
    timeoutMs: number,
    limit: string | undefined,
    first: { readonly schema: SchemaModel; readonly path: SchemaPath },
  ) {
    this.#driver = driver
    this.#options = options
    this.#timeoutMs = timeoutMs
    this.#limit = limit
    this.#path = first.path
    this.#latest = first.schema
    // The first read asked for is never put off: a migration run right after connect heals at once.
    this.#readAt = Number.NEGATIVE_INFINITY
  }

  /** The last schema read. */
  get latest(): SchemaModel {
    return this.#latest
  }

  /** Reads the catalog again (joining a read under way): the new schema, also `latest` from now on. */
  readAgain(): Promise<SchemaModel> {
    if (this.#reading !== undefined) return this.#reading
    this.#readAt = performance.now()
    // The schemas read first, whatever the search path of the connection that answers now.
    const reading = readCatalogSchema(
      this.#driver,
      this.#options,
      this.#timeoutMs,
      this.#limit,
      this.#path,
    ).then(({ schema }) => {
      this.#latest = schema
      return schema
    })
    this.#reading = reading
    const done = () => {
      if (this.#reading === reading) this.#reading = undefined
    }
    reading.then(done, done)
    return reading
  }

  /**
   * Reads the catalog again in the background, unless a read began less than
   * {@link SCHEMA_REREAD_MIN_MS} ago: a statement failing again and again (the application's own
   * mistake, or a change not yet complete) costs at most one catalog query per interval. A failed read
   * leaves `latest` as it was.
   */
  readSoon(): void {
    if (this.#reading !== undefined || performance.now() - this.#readAt < SCHEMA_REREAD_MIN_MS) return
    this.readAgain().catch(() => {})
  }
}

const cache = new WeakMap<Driver, Map<string, Promise<CatalogSchema>>>()

/**
 * The schema of the driver's database, read once per client and options (a failed read is retried by
 * the next call), each query within `timeoutMs` (`QUERY_TIMEOUT`, its message naming `limit`): entity
 * managers of one process share it, and its later reads (see {@link CatalogSchema}).
 */
export function cachedSchema(
  driver: Driver,
  options: ReadSchemaOptions,
  timeoutMs = Number.POSITIVE_INFINITY,
  limit?: string,
): Promise<CatalogSchema> {
  let byDriver = cache.get(driver)
  if (!byDriver) {
    byDriver = new Map()
    cache.set(driver, byDriver)
  }
  const key = JSON.stringify({
    s: options.schemas ?? null,
    v: options.versionColumn ?? null,
    r: options.relationNames ?? null,
    l: options.localSettings ?? null,
    n: options.names === undefined ? null : namesId(options.names),
  })
  let p = byDriver.get(key)
  if (!p) {
    const read = readCatalogSchema(driver, options, timeoutMs, limit).then(
      (first) => new CatalogSchema(driver, options, timeoutMs, limit, first),
    )
    p = read
    byDriver.set(key, read)
    read.catch(() => byDriver.delete(key))
  }
  return p
}

const namesIds = new WeakMap<(name: string) => string, number>()

/** A number per `names` function, for the cache's key: schemas read with two mappings are two schemas. */
function namesId(names: (name: string) => string): number {
  let id = namesIds.get(names)
  if (id === undefined) {
    id = namesIdsGiven++
    namesIds.set(names, id)
  }
  return id
}

let namesIdsGiven = 1
