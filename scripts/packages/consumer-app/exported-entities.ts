// Type-checked only, with declaration emit (the app's `declaration: true`): a module of an
// application that exports functions whose inferred return types hold entities (a library of a
// monorepo, a `composite` project) compiles, its declaration file written, on each package.
import type { EntityManager } from '@pipeflush/core'
import { createEntityManagerFactory as drizzleFactory } from '@pipeflush/drizzle'
import { type Generated, createEntityManagerFactory as kyselyFactory } from '@pipeflush/kysely'
import { drizzle } from 'drizzle-orm/node-postgres'
import { pgTable, serial, text } from 'drizzle-orm/pg-core'
import type pg from 'pg'

interface DB {
  author: { id: Generated<number>; name: string }
}

export const authors = pgTable('author', { id: serial().primaryKey(), name: text().notNull() })

export function coreAuthor(em: EntityManager) {
  return em.create('author', { name: 'Ada' })
}

export async function kyselyAuthors(pool: pg.Pool) {
  const factory = await kyselyFactory<DB>({ client: pool })
  return factory.run(async (em) => [em.create('author', { name: 'Ada' }), ...(await em.find('author', {}))])
}

export async function drizzleAuthors(pool: pg.Pool) {
  const factory = await drizzleFactory({ db: drizzle(pool, { schema: { authors } }) })
  return factory.run(async (em) => [em.create(authors, { name: 'Ada' }), ...(await em.find(authors, {}))])
}
