/**
 * pipeflush: a unit of work for PostgreSQL whose flush is one pipelined round trip.
 *
 * @example
 * import postgres from 'postgres' // or: import pg from 'pg'
 * import { EntityManager } from '@pipeflush/core'
 *
 * const em = await EntityManager.connect(postgres(url)) // or new pg.Pool({ connectionString: url, pipeline: true })
 * const ada = em.create('author', { name: 'Ada' })
 * em.create('book', { title: 'Notes', author_id: ada })
 * await em.flush()
 */

export { EntityManager } from './entity-manager.ts'
export type { ErrorCode, PipeflushErrorDetails } from './errors.ts'
export { isPipeflushError, PipeflushError } from './errors.ts'
export { flushLogDdl } from './flush/flush-log.ts'
export type { FlushReport } from './flush/flush-report.ts'
export type { PipelineMode } from './flush/modes.ts'
export {
  type BeforeFlushChanges,
  type FlushHooks,
  MAX_HOOK_ROUNDS,
  type TableHooks,
} from './hooks/flush-hooks.ts'
export type { EntityManagerOptions, ForkOptions } from './options.ts'
export { formatPlan } from './plan/format-plan.ts'
export { planFlush } from './plan/plan-flush.ts'
export type {
  ChangeSet,
  DeleteChange,
  FlushPlan,
  InsertChange,
  PlannedStatement,
  StatementKind,
  UpdateChange,
  UpsertSpec,
} from './plan/types.ts'
export type { Where } from './read/select-sql.ts'
export { defineSchema } from './schema/define-schema.ts'
export type {
  ColumnModel,
  ForeignKeyModel,
  OnDeleteAction,
  RelationKind,
  ScalarType,
  SchemaModel,
  TableModel,
  UniqueModel,
} from './schema/model.ts'
export { type ReadSchemaOptions, readSchema } from './schema/read-schema.ts'
export type { Entity } from './track/entity-state.ts'
export { decodeValue } from './values/decode.ts'
export { encodeValue } from './values/encode.ts'
