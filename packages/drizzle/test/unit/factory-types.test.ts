import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { integer, pgTable, text } from 'drizzle-orm/pg-core'
import { describe, expectTypeOf, test } from 'vitest'
import { createEntityManagerFactory, type EntityManagerFactory } from '../../src/index.ts'

// Type tests of the factory's schema: nothing here runs against a database (`npm run typecheck`
// checks them). An option given as undefined takes its default, in types as at run time.
const authors = pgTable('authors', { id: integer('id').primaryKey(), name: text('name').notNull() })
const schema = { authors }
declare const db: NodePgDatabase<typeof schema>
declare const bare: NodePgDatabase
declare const maybe: typeof schema | undefined
const noRun = false

describe('createEntityManagerFactory', () => {
  test("the schema is the database's when none is given, or undefined is", async () => {
    if (noRun) {
      expectTypeOf(await createEntityManagerFactory({ db })).toEqualTypeOf<
        EntityManagerFactory<typeof schema>
      >()
      const factory = await createEntityManagerFactory({ db, schema: undefined })
      expectTypeOf(factory).toEqualTypeOf<EntityManagerFactory<typeof schema>>()
      const found = await factory.fork().find(authors, {})
      expectTypeOf(found[0]!.name).toEqualTypeOf<string>()
    }
  })

  test('a schema given is the one typed, also given as a value that may be undefined', async () => {
    if (noRun) {
      expectTypeOf(await createEntityManagerFactory({ db: bare, schema })).toEqualTypeOf<
        EntityManagerFactory<typeof schema>
      >()
      expectTypeOf(await createEntityManagerFactory({ db: bare, schema: maybe })).toEqualTypeOf<
        EntityManagerFactory<typeof schema>
      >()
      // The database's type given alone, as before the schema's overloads: the schema is its.
      expectTypeOf(await createEntityManagerFactory<typeof db>({ db, schema })).toEqualTypeOf<
        EntityManagerFactory<typeof schema>
      >()
    }
  })
})
