import type { Kysely } from 'kysely'
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
    try {
      return await work(kyselyRepositories(this.#db))
    } catch (e) {
      throw uniqueViolationOf(e) ?? e
    }
  }
}
