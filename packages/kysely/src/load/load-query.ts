import type { Entity, EntityManager } from '@pipeflush/core'
import type { Kysely, SelectQueryBuilder } from 'kysely'
import { decodeText } from './decode-text.ts'
import { queryTable } from './query-table.ts'
import { textSelection } from './text-selection.ts'

type AnySelect = SelectQueryBuilder<Record<string, Record<string, unknown>>, string, object>

/**
 * Runs a Kysely select over one table and tracks its rows in `em`'s identity map (rows already
 * managed come back as the same objects, with their unflushed changes; removed ones are left out).
 * The query keeps its WHERE, ORDER BY, LIMIT, locking...; its select list is replaced by every column
 * as text (decoded as `em.find` does), so the result does not depend on the client's type parsers.
 * It runs through `db`, the application's Kysely instance (its dialect and pool).
 */
export async function loadQuery<DB>(em: EntityManager, db: Kysely<DB>, query: unknown): Promise<Entity[]> {
  const builder = query as AnySelect
  const { model, qualifier } = queryTable(builder.toOperationNode(), em.schema)
  const compiled = builder
    .clearSelect()
    .select(model.columns.map((c, i) => textSelection(qualifier, c).as(`c${i}`)))
    .compile()
  const { rows } = await db.executeQuery<Record<string, unknown>>(compiled)
  const out: Entity[] = []
  for (const raw of rows) {
    const row: Record<string, unknown> = {}
    model.columns.forEach((c, i) => {
      row[c.name] = decodeText(raw[`c${i}`], c, model)
    })
    const entity = em.merge(model.key, row)
    const state = em.stateOf(entity)
    if (state === 'managed' || state === 'new') out.push(entity)
  }
  return out
}
