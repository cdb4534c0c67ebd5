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

import type { EntityManager } from './entity-manager.ts'
import type { FlushReport } from './flush/flush-report.ts'
import type { FlushHooks as FlushHooksOf, TableHooks as TableHooksOf } from './hooks/flush-hooks.ts'
import type { EntityManagerOptions as ConnectOptions } from './options.ts'
import type { Entity } from './track/entity-state.ts'

export { EntityManager } from './entity-manager.ts'
export type { ErrorCode, PipeflushErrorDetails } from './errors.ts'
export { isPipeflushError, PipeflushError } from './errors.ts'
export { flushLogDdl } from './flush/flush-log.ts'
export type { FlushReport } from './flush/flush-report.ts'
export type { PipelineMode } from './flush/pipeline-mode.ts'
export { type BeforeFlushChanges, MAX_HOOK_ROUNDS } from './hooks/flush-hooks.ts'
export type { ForkOptions } from './options.ts'

/** Code run as part of every flush (see `hooks/flush-hooks.ts`), given this package's entity manager. */
export type FlushHooks<E = Entity, M = EntityManager, R = FlushReport> = FlushHooksOf<E, M, R>
/** Hooks of one table (see `hooks/flush-hooks.ts`), given this package's entity manager. */
export type TableHooks<E = Entity, M = EntityManager> = TableHooksOf<E, M>
/** Options of `EntityManager.connect` (see `options.ts`), its hooks given this package's entity manager. */
export type EntityManagerOptions = ConnectOptions<EntityManager>
export type {
  ColumnModel,
  ForeignKeyModel,
  OnDeleteAction,
  RelationKind,
  ScalarType,
  SchemaModel,
  TableModel,
  UniqueModel,
  ValueMapping,
} from './model/model.ts'
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
export type { Direction, OrderBy, With, WithOptions } from './read/graph.ts'
export type { ReadStatement } from './read/read-batch.ts'
export type { FindOptions, ReadOptions } from './read/reads.ts'
export type { Where } from './read/select-sql.ts'
export { defineSchema } from './schema/define-schema.ts'
export { plural } from './schema/plural.ts'
export { readSchema } from './schema/read-schema.ts'
export type { ReadSchemaOptions } from './schema/read-schema-options.ts'
export { type RelationModel, type RelationNames, relationsOf } from './schema/relations.ts'
export type {
  ColumnSpec,
  ColumnSpecInput,
  DefineSchemaOptions,
  ForeignKeySpec,
  SchemaSpec,
  TableSpec,
  UniqueSpec,
} from './schema/schema-spec.ts'
export type { Entity } from './track/entity-state.ts'
export { decodeValue } from './values/decode.ts'
export { encodeValue } from './values/encode.ts'
export { queryParamTexts } from './values/query-params.ts'
