import type { Param } from '../drivers/driver.ts'

/** One select of a read: its text and text parameters (`$1`...). */
export interface ReadStatement {
  readonly text: string
  /**
   * One for each of the `$1..$n` the text uses: a value's PostgreSQL text form (`'5'`, cast in the
   * SQL as needed: `$1::int`), or null. The application's are checked before they are sent (a number
   * or a count that does not match the text is `INVALID_VALUE`: see `ownStatement`).
   */
  readonly params: readonly Param[]
  /** The table it reads (for spans and logs). */
  readonly table?: string | undefined
  /**
   * Read with the `lock` option: it begins the unit of work's locking transaction when none is open
   * (a locking clause the application wrote itself runs as it is, in that transaction when one is open).
   */
  readonly locking?: boolean | undefined
  /** Read in one snapshot with the other statements of its batch (see `Select.snapshot`). */
  readonly snapshot?: boolean | undefined
}
