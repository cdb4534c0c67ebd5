import type { TableName, TypedEntity } from '@pipeflush/kysely'
import type { DB } from '../../schema.ts'
import type { ConduitEm } from './types.ts'

/**
 * `record` as the entity of `table` it is in this unit of work: the records the handlers hand back to
 * a repository (the user to update, the article to remove) are the entities its reads returned. Any
 * other object is a programming error.
 *
 * @example
 * em.assign(ownEntity(em, 'article', view.article), { body: 'With two hands' })
 */
export function ownEntity<T extends TableName<DB>>(
  em: ConduitEm,
  table: T,
  record: object,
): TypedEntity<DB, T> {
  if (!em.is(record, table)) throw new Error(`not an entity of ${table} in this unit of work`)
  return record
}
