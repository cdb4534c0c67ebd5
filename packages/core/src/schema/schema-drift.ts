import { isPipeflushError } from '../errors.ts'
import type { ClientCatalog } from '../settings.ts'

/**
 * SQLSTATEs of pipeflush's own statements failing because a table changed since the schema was read:
 * a column gone or renamed (42703), a table gone or renamed (42P01), a column's type changed so that
 * the text pipeflush casts no longer fits it (42804).
 */
const CHANGED_UNDER: ReadonlySet<string> = new Set(['42703', '42P01', '42804'])

/** Whether `error` is a statement of pipeflush's that failed because a table changed under it. */
export function changedUnder(error: unknown): boolean {
  return isPipeflushError(error) && error.sqlState !== undefined && CHANGED_UNDER.has(error.sqlState)
}

/**
 * `work`, and when it fails because a table changed since `catalog` was read (a migration dropped a
 * column the schema still lists), the catalog read again in the background: the units of work made
 * from then on use the tables as they are, so that a running process heals without a restart. The
 * error is the caller's as it was.
 *
 * @example
 * return watchDrift(this.#reads.find(table, where, options), settings.catalog)
 */
export function watchDrift<T>(work: Promise<T>, catalog: ClientCatalog | undefined): Promise<T> {
  if (catalog === undefined) return work
  return work.catch((error: unknown) => {
    if (changedUnder(error)) catalog.source.readSoon()
    throw error
  })
}
