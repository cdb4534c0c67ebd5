/**
 * A write refused by a unique constraint (SQLSTATE 23505), whichever implementation made it: the
 * handlers answer 422 naming the field (`app_user_username_key`: username). Nothing of the request was
 * committed.
 */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation'
  /** The constraint the server named, e.g. `app_user_email_key`. */
  readonly constraint: string

  constructor(constraint: string, options?: ErrorOptions) {
    super(`unique constraint ${constraint} violated`, options)
    this.constraint = constraint
  }
}

/**
 * The unique violation `e` is, as a {@link UniqueViolation}, from a driver's error (node-postgres:
 * `code`, `constraint`; postgres.js: `code`, `constraint_name`) or a pipeflush error (`sqlState`,
 * `constraint`), else undefined.
 *
 * @example
 * try { await db.insertInto('app_user').values(row).execute() } catch (e) { throw uniqueViolationOf(e) ?? e }
 */
export function uniqueViolationOf(e: unknown): UniqueViolation | undefined {
  if (typeof e !== 'object' || e === null) return undefined
  const error = e as { code?: unknown; sqlState?: unknown; constraint?: unknown; constraint_name?: unknown }
  const state = error.sqlState ?? error.code
  if (state !== '23505') return undefined
  const constraint = error.constraint ?? error.constraint_name
  return new UniqueViolation(typeof constraint === 'string' ? constraint : 'unknown', { cause: e })
}
