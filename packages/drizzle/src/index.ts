/**
 * `@pipeflush/drizzle`: pipeflush's unit of work over the application's Drizzle table definitions.
 * Entities are typed by the tables (`$inferSelect`, `$inferInsert`), use their property names and
 * hold the values Drizzle gives; every change of a request is written by one pipelined flush; the
 * reads a request starts together (finds with their relations, Drizzle selects as the roots of a
 * graph, Drizzle selects of totals) go in one round trip; both use the database's own pool (a
 * `pg.Pool` or a postgres.js client).
 *
 * @example
 * import { drizzle } from 'drizzle-orm/node-postgres'
 * import { eq } from 'drizzle-orm'
 * import { integer, pgTable, serial, text } from 'drizzle-orm/pg-core'
 * import pg from 'pg'
 *
 * const authors = pgTable('author', { id: serial().primaryKey(), name: text().notNull() })
 * const books = pgTable('book', {
 *   id: serial().primaryKey(),
 *   title: text().notNull(),
 *   authorId: integer('author_id').notNull().references(() => authors.id),
 * })
 * const db = drizzle(new pg.Pool({ connectionString: url, pipeline: true }), { schema: { authors, books } })
 * const factory = await createEntityManagerFactory({ db })
 * const { result, report } = await factory.run(async (em) => {
 *   const ada = em.create(authors, { name: 'Ada' })
 *   em.create(books, { title: 'Notes', authorId: ada })
 *   const drafts = await em.load(db.select().from(books).where(eq(books.title, 'Draft')))
 *   for (const d of drafts) em.remove(d)
 *   return ada
 * })
 * console.log(result.id, report.roundTrips) // 1 round trip once warm
 */

// The errors it throws are @pipeflush/core's: importable from here, where an install keeps each
// package's dependencies apart (pnpm, npm's linked installs).
export type { ErrorCode, PipeflushErrorDetails } from '@pipeflush/core'
export { isPipeflushError, PipeflushError } from '@pipeflush/core'
export type { CheckedTree } from './checked-tree.ts'
export { DrizzleEntityManager } from './entity-manager.ts'
export {
  createEntityManagerFactory,
  EntityManagerFactory,
  type EntityManagerFactoryOptions,
  type RunOptions,
  type RunResult,
  type SchemaOf,
  type VersionOption,
} from './factory.ts'
export type {
  DeclaredRelations,
  Found,
  Loaded,
  ManyName,
  Related,
  RelationName,
  RelationTree,
  TypedFindOptions,
  TypedOrderBy,
  TypedReadOptions,
  WithTree,
} from './relation-types.ts'
export type { AnySelect, SelectKey, SelectOf, SelectResult } from './select-types.ts'
export type { TypedBeforeFlushChanges, TypedFlushHooks, TypedTableHooks } from './typed-hooks.ts'
export type {
  AnyEntity,
  AssignValues,
  ColumnKey,
  ColumnRefOr,
  Condition,
  CreateValues,
  Entity,
  EntityBrand,
  KeyOf,
  KeyOfTable,
  RefOr,
  TableKey,
  Where,
} from './types.ts'
