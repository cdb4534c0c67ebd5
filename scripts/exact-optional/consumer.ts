// Compiled with `exactOptionalPropertyTypes` (`npm run typecheck`), as strict applications set it: an
// option read from configuration that may be undefined is accepted wherever the runtime takes
// undefined for the default. The packages' own sources compile under it too.
import { defineSchema, EntityManager, type PipelineMode } from '@pipeflush/core'
import { createEntityManagerFactory as drizzleFactory } from '@pipeflush/drizzle'
import { createEntityManagerFactory as kyselyFactory } from '@pipeflush/kysely'
import { drizzle } from 'drizzle-orm/node-postgres'
import { integer, pgTable, text } from 'drizzle-orm/pg-core'
import type pg from 'pg'

declare const config: {
  readonly pipeline: PipelineMode | undefined
  readonly timeoutMs: number | undefined
  readonly retries: number | undefined
  readonly limit: number | undefined
  readonly name: string | undefined
}

export async function core(pool: pg.Pool): Promise<void> {
  const schema = defineSchema({
    author: {
      columns: {
        id: 'int8',
        name: { type: 'text', nullable: config.limit === undefined ? undefined : true },
      },
      primaryKey: ['id'],
      name: config.name,
    },
  })
  const root = await EntityManager.connect(pool, {
    pipeline: config.pipeline,
    flushTimeoutMs: config.timeoutMs,
    schema,
    hooks: undefined,
    tracing: undefined,
  })
  const em = root.fork({ pipeline: config.pipeline, flushTimeoutMs: config.timeoutMs })
  await em.find('author', {}, { limit: config.limit, offset: undefined, orderBy: undefined, with: undefined })
  em.upsert('author', { id: 1, name: 'Ada' }, { conflict: ['id'], update: undefined })
}

interface DB {
  author: { id: number; name: string }
}

export async function kysely(pool: pg.Pool): Promise<void> {
  const factory = await kyselyFactory<DB>({ client: pool, db: undefined, pipeline: config.pipeline })
  await factory.run((em) => em.find('author', {}, { limit: config.limit }), {
    retries: config.retries,
    pipeline: config.pipeline,
  })
  const em = factory.em({ pipeline: config.pipeline })
  await em.find('author', {}, { with: undefined })
  // A patch whose properties may be undefined (a request body's optional fields): left as they are.
  const author = em.create('author', { id: 2, name: 'Bob' })
  em.assign(author, { name: config.name })
  await kyselyFactory<DB>({
    client: pool,
    hooks: { beforeFlush: undefined, tables: { author: { beforeCreate: undefined } } },
  })
}

const authors = pgTable('author', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  bio: text('bio'),
  role: text('role').notNull().default('member'),
})

export async function drizzleApp(pool: pg.Pool): Promise<void> {
  const db = drizzle(pool, { schema: { authors } })
  const factory = await drizzleFactory({
    db,
    client: undefined,
    version: undefined,
    pipeline: config.pipeline,
  })
  await factory.run((em) => em.find(authors, {}, { limit: config.limit }), { retries: config.retries })
  const em = factory.fork({ pipeline: config.pipeline })
  em.upsert(authors, { id: 1, name: 'Ada' }, { conflict: ['id'], update: undefined })
  // A repository's patch as applications type it (`Partial` of the insert type, whose optional
  // properties allow undefined): a property given as undefined is left as it is.
  const patch: Partial<typeof authors.$inferInsert> = { name: 'Ada', bio: config.name, role: config.name }
  em.assign(em.create(authors, { id: 2, name: 'Bob' }), patch)
  await drizzleFactory({
    db,
    hooks: { afterCommit: undefined, tables: { authors: { beforeUpdate: undefined } } },
  })
  // A schema given as undefined is the database's, in types too: the rows keep their properties.
  const bySchema = await drizzleFactory({ db, schema: undefined })
  const [first] = await bySchema.fork().find(authors, {})
  const name: string | undefined = first?.name
  void name
}
