import { isPipeflushError } from '../errors.ts'
import type { SchemaModel } from '../model/model.ts'
import type { ClientCatalog } from '../settings.ts'
import { foreignKeyNamed } from './checks.ts'

/**
 * SQLSTATEs of pipeflush's own statements failing because a table changed since the schema was read:
 * a column gone or renamed (42703), a table gone or renamed (42P01), a column's type changed so that
 * the text pipeflush casts no longer fits it (42804).
 */
const CHANGED_UNDER: ReadonlySet<string> = new Set(['42703', '42P01', '42804'])

/**
 * Whether `error` is a statement of pipeflush's that failed because a table changed under `schema`:
 * one of {@link CHANGED_UNDER}, or a foreign key violated (23503) that `schema` does not know, added
 * since it was read (the flush's order follows the keys it knows: a child inserted before its new
 * parent). A violation of a key it knows is the application's (a reference to no row): nothing to
 * read, as nothing is read for a value or a name pipeflush refuses before sending, which is bad
 * input far more often than a migration (`refreshSchema` takes those).
 */
export function changedUnder(error: unknown, schema: SchemaModel): boolean {
  if (!isPipeflushError(error) || error.sqlState === undefined) return false
  if (error.sqlState === '23503')
    return error.constraint !== undefined && !knowsForeignKey(schema, error.constraint)
  return CHANGED_UNDER.has(error.sqlState)
}

/** Whether a table of `schema` has a foreign key named `name` (see `foreignKeyNamed`). */
function knowsForeignKey(schema: SchemaModel, name: string): boolean {
  for (const table of schema.tables.values()) if (foreignKeyNamed(table, name) !== undefined) return true
  return false
}

/**
 * `work`, and when it fails because a table changed since `catalog` was read (a migration dropped a
 * column the schema still lists, added a foreign key), the catalog read again in the background: the
 * units of work made from then on use the tables as they are, so that a running process heals without
 * a restart. The error is the caller's as it was.
 *
 * @example
 * return watchDrift(this.#reads.find(table, where, options), settings.catalog)
 */
export function watchDrift<T>(work: Promise<T>, catalog: ClientCatalog | undefined): Promise<T> {
  if (catalog === undefined) return work
  return work.catch((error: unknown) => {
    if (changedUnder(error, catalog.source.latest)) catalog.source.readSoon()
    throw error
  })
}
