/**
 * pipeflush: a unit of work for PostgreSQL whose flush is one pipelined round trip.
 *
 * @example
 * import postgres from 'postgres'
 * import { EntityManager } from '@pipeflush/core'
 *
 * const em = await EntityManager.connect(postgres(url))
 * const ada = em.create('author', { name: 'Ada' })
 * em.create('book', { title: 'Notes', author_id: ada })
 * await em.flush()
 */

export { noDelay } from './connection/no-delay.ts'
export type { EntityManagerOptions, FlushReport } from './entity-manager.ts'
export { EntityManager } from './entity-manager.ts'
export type { ErrorCode, PipeflushErrorDetails } from './errors.ts'
export { isPipeflushError, PipeflushError } from './errors.ts'
export { flushLogDdl } from './execute/flush-log.ts'
export type { PipelineMode } from './execute/types.ts'
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
  ScalarType,
  SchemaModel,
  TableModel,
  UniqueModel,
} from './schema/model.ts'
export { type ReadSchemaOptions, readSchema } from './schema/read-schema.ts'
export type { Entity } from './track/entity-state.ts'
export { decodeValue, encodeValue } from './values/index.ts'
