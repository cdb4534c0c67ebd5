import type postgres from 'postgres'
import type { SchemaModel } from './model.ts'
import { type ReadSchemaOptions, readSchema } from './read-schema.ts'

const cache = new WeakMap<postgres.Sql, Map<string, Promise<SchemaModel>>>()

/**
 * The schema of `sql`'s database, read once per client and options (a failed read is retried by the
 * next call): entity managers of one process share it.
 */
export function cachedSchema(sql: postgres.Sql, options: ReadSchemaOptions): Promise<SchemaModel> {
  let bySql = cache.get(sql)
  if (!bySql) {
    bySql = new Map()
    cache.set(sql, bySql)
  }
  const key = JSON.stringify({ s: options.schemas ?? null, v: options.versionColumn ?? null })
  let p = bySql.get(key)
  if (!p) {
    const read = readSchema(sql, options)
    p = read
    bySql.set(key, read)
    read.catch(() => bySql.delete(key))
  }
  return p
}
