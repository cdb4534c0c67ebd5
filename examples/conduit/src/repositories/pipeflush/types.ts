import type { TypedEntity, TypedEntityManager } from '@pipeflush/kysely'
import type { Relations } from '../../relations.ts'
import type { DB } from '../../schema.ts'

/** The unit of work of one request, typed by the tables and their relations. */
export type ConduitEm = TypedEntityManager<DB, Relations>
export type User = TypedEntity<DB, 'app_user'>
export type Article = TypedEntity<DB, 'article'>
export type Comment = TypedEntity<DB, 'comment'>
export type Tag = TypedEntity<DB, 'tag'>
