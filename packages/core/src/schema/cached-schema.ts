import type { Driver } from '../drivers/driver.ts'
import type { SchemaModel } from '../model/model.ts'
import { readSchemaWithin } from './read-schema.ts'
import type { ReadSchemaOptions } from './read-schema-options.ts'

const cache = new WeakMap<Driver, Map<string, Promise<SchemaModel>>>()

/**
 * The schema of the driver's database, read once per client and options (a failed read is retried by
 * the next call), each query within `timeoutMs` (`QUERY_TIMEOUT`, its message naming `limit`): entity managers of one process
 * share it.
 */
export function cachedSchema(
  driver: Driver,
  options: ReadSchemaOptions,
  timeoutMs = Number.POSITIVE_INFINITY,
  limit?: string,
): Promise<SchemaModel> {
  let byDriver = cache.get(driver)
  if (!byDriver) {
    byDriver = new Map()
    cache.set(driver, byDriver)
  }
  const key = JSON.stringify({
    s: options.schemas ?? null,
    v: options.versionColumn ?? null,
    r: options.relationNames ?? null,
  })
  let p = byDriver.get(key)
  if (!p) {
    const read = readSchemaWithin(driver, options, timeoutMs, limit)
    p = read
    byDriver.set(key, read)
    read.catch(() => byDriver.delete(key))
  }
  return p
}
