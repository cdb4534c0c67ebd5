import { isPipeflushError } from '../errors.ts'
import type { ClientCatalog } from '../settings.ts'
import { beyondDeclaredLimit } from '../values/location.ts'

/**
 * SQLSTATEs of pipeflush's own statements failing because a table changed since the schema was read:
 * a column gone or renamed (42703), a table gone or renamed (42P01), a column's type changed so that
 * the text pipeflush casts no longer fits it (42804), a foreign key added that the flush's order does
 * not know of (23503: a child inserted before its new parent; also what a row referencing none gives,
 * for which the read is one query at most every few seconds).
 */
const CHANGED_UNDER: ReadonlySet<string> = new Set(['42703', '42P01', '42804', '23503'])

/** Codes of pipeflush's own refusals that a newer schema may not make: a table or column added since. */
const UNKNOWN_YET: ReadonlySet<string> = new Set(['UNKNOWN_TABLE', 'UNKNOWN_COLUMN'])

/**
 * Whether `error` may come of a table changed since the schema was read: a statement of pipeflush's
 * failed because a table changed under it; a table or column named that the schema lacks; or a value
 * refused (written or read) by a limit of its column's declaration as read (an enum label added
 * since, a column widened: see `limitProblem`).
 */
export function changedUnder(error: unknown): boolean {
  if (!isPipeflushError(error)) return false
  if (error.sqlState !== undefined) return CHANGED_UNDER.has(error.sqlState)
  return UNKNOWN_YET.has(error.code) || beyondDeclaredLimit(error)
}

/**
 * When `error` may come of a table changed since `catalog` was read (see {@link changedUnder}), the
 * catalog read again in the background (at most once every few seconds: see `CachedSchema`).
 *
 * @example
 * try { return this.#create(table, values) } catch (e) { noticeDrift(e, settings.catalog); throw e }
 */
export function noticeDrift(error: unknown, catalog: ClientCatalog | undefined): void {
  if (catalog !== undefined && changedUnder(error)) catalog.source.readSoon()
}

/**
 * `work`, and when it fails because a table changed since `catalog` was read (a migration dropped a
 * column the schema still lists, added an enum label, widened a column), the catalog read again in
 * the background: the units of work made
 * from then on use the tables as they are, so that a running process heals without a restart. The
 * error is the caller's as it was.
 *
 * @example
 * return watchDrift(this.#reads.find(table, where, options), settings.catalog)
 */
export function watchDrift<T>(work: Promise<T>, catalog: ClientCatalog | undefined): Promise<T> {
  if (catalog === undefined) return work
  return work.catch((error: unknown) => {
    noticeDrift(error, catalog)
    throw error
  })
}
