import { type Kysely, NoResultError } from 'kysely'
import type { DB } from '../../schema.ts'
import type { Store } from '../store.ts'
import type { Repositories } from '../types.ts'
import { uniqueViolationOf } from '../unique-violation.ts'
import { kyselyRepositories } from './repositories.ts'

/**
 * Conduit without pipeflush, for comparison: the same handlers on repositories that await each Kysely
 * query in turn (a write of several statements in a Kysely transaction), on the same pool.
 *
 * @example
 * const store = new KyselyStore(db)
 * const user = await store.run(({ users }) => users.byId(1))
 */
export class KyselyStore implements Store {
  readonly name = 'plain Kysely'
  readonly #db: Kysely<DB>

  constructor(db: Kysely<DB>) {
    this.#db = db
  }

  async run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work(kyselyRepositories(this.#db))
      } catch (e) {
        // A row the write references was removed meanwhile (a favorite or comment of an article being
        // deleted), or the row it changes (an update returning no row): the work runs again on what is
        // stored now (a 404). Each request writes with one statement or one transaction, so a failed
        // write left nothing behind.
        if (attempt < MAX_ATTEMPTS && (sqlStateOf(e) === FOREIGN_KEY_VIOLATION || e instanceof NoResultError))
          continue
        throw uniqueViolationOf(e) ?? e
      }
    }
  }
}

/** Runs of a request's work at most, when its write meets a row another request removed meanwhile. */
const MAX_ATTEMPTS = 3

/** SQLSTATE foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503'

/** The SQLSTATE of a driver's error (`code` on node-postgres's and postgres.js's alike). */
function sqlStateOf(e: unknown): unknown {
  return typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined
}
