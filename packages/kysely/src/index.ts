/**
 * `@pipeflush/kysely`: pipeflush's unit of work typed by a Kysely database interface. Writes are
 * collected and flushed in one pipelined transaction; reads are written with Kysely and loaded into
 * the identity map; both use the application's one pool (a `pg.Pool` or a postgres.js client).
 *
 * @example
 * import pg from 'pg'
 * import { type Generated, Kysely, PostgresDialect } from 'kysely'
 * import { createEntityManagerFactory } from '@pipeflush/kysely'
 *
 * interface DB {
 *   author: { id: Generated<number>; name: string }
 *   book: { id: Generated<number>; title: string; author_id: number }
 * }
 *
 * const pool = new pg.Pool({ connectionString: url, pipeline: true })
 * const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
 * const factory = await createEntityManagerFactory<DB>({ client: pool, db })
 * const { result, report } = await factory.run(async (em) => {
 *   const ada = em.create('author', { name: 'Ada' })
 *   em.create('book', { title: 'Notes', author_id: ada })
 *   const drafts = await em.load(em.db.selectFrom('book').selectAll().where('title', 'like', 'Draft%'))
 *   for (const d of drafts) em.remove(d)
 *   return ada
 * })
 * console.log(result.id, report.roundTrips) // 1 round trip once warm
 */

// The errors it throws are @pipeflush/core's: importable from here, where an install keeps each
// package's dependencies apart (pnpm, npm's linked installs).
export type { ErrorCode, PipeflushErrorDetails } from '@pipeflush/core'
export { isPipeflushError, PipeflushError } from '@pipeflush/core'
export type { Generated, Int8, Numeric } from './column-types.ts'
export { describeFlush } from './describe-flush.ts'
export {
  createEntityManagerFactory,
  EntityManagerFactory,
  type EntityManagerFactoryOptions,
  type RunOptions,
  type RunResult,
} from './factory.ts'
export {
  type ManyRelationName,
  type NoRelations,
  type Related,
  type RelationName,
  type Relations,
  type RelationTree,
  type RelationType,
  relationsTypeSource,
  type TypedFindOptions,
  type TypedOrderBy,
  type TypedReadOptions,
  type WithTree,
} from './relations.ts'
export { TypedEntityManager } from './typed-entity-manager.ts'
export type { TypedBeforeFlushChanges, TypedFlushHooks, TypedTableHooks } from './typed-hooks.ts'
export type {
  AnyEntity,
  AssignValues,
  ColumnName,
  Condition,
  CreateValues,
  EntityQuery,
  KeyOf,
  RefOr,
  Row,
  TableName,
  TypedEntity,
  Where,
} from './types.ts'
