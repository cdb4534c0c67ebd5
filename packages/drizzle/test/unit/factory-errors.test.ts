import { isPipeflushError } from '@pipeflush/core'
import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { schema } from '../fixtures/schema.ts'

/** The code and message `work` rejects with. */
async function failure(work: () => Promise<unknown>): Promise<string> {
  try {
    await work()
  } catch (e) {
    if (isPipeflushError(e)) return `${e.code}: ${e.message}`
    throw e
  }
  return 'no error'
}

// Options that cannot work fail before any query, with INVALID_CONFIG saying what is wrong.
describe('createEntityManagerFactory', () => {
  const db = drizzle.mock({ schema })

  it('takes a Drizzle database of pg-core, with a schema', async () => {
    expect(await failure(() => createEntityManagerFactory({ db: {} as typeof db }))).toMatch(
      /^INVALID_CONFIG: .*db must be a Drizzle database/,
    )
    expect(await failure(() => createEntityManagerFactory({ db: drizzle.mock() }))).toMatch(
      /^INVALID_CONFIG: .*no schema: make the database with drizzle\(client, \{ schema \}\) or give `schema`/,
    )
  })

  it('checks the version option against the schema', async () => {
    expect(
      await failure(() => createEntityManagerFactory({ db, version: { book: 'version' } as never })),
    ).toMatch(/^INVALID_CONFIG: version names "book", which is not a table of the schema/)
    expect(
      await failure(() => createEntityManagerFactory({ db, version: { books: 'rev' } as never })),
    ).toMatch(/^INVALID_CONFIG: version: books has no property "rev"/)
    // `versionColumn`, core's and Kysely's name for it, is the same option, checked the same.
    expect(
      await failure(() => createEntityManagerFactory({ db, versionColumn: { books: 'rev' } as never })),
    ).toMatch(/^INVALID_CONFIG: version: books has no property "rev"/)
    expect(
      await failure(() => createEntityManagerFactory({ db, version: 'version', versionColumn: 'rev' })),
    ).toMatch(
      /^INVALID_CONFIG: createEntityManagerFactory: give the version column as `version` or as `versionColumn`, not both/,
    )
  })

  it('needs a pool: a database without a client is refused by pipeflush', async () => {
    expect(await failure(() => createEntityManagerFactory({ db }))).toMatch(/^INVALID_CONFIG/)
  })

  it("names the client option when the database's own client is not a pool (a pg.Client)", async () => {
    const onClient = drizzle(new pg.Client({ host: '127.0.0.1', port: 1 }), { schema })
    expect(await failure(() => createEntityManagerFactory({ db: onClient }))).toMatch(
      /^INVALID_CONFIG: createEntityManagerFactory: the database's own client \(db\.\$client\) cannot be used: A Client is not a client .* Give the factory the pool as `client`: createEntityManagerFactory\(\{ db, client: pool \}\)\.$/,
    )
  })
})
