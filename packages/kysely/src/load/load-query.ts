import type { Entity, EntityManager, ReadOptions } from '@pipeflush/core'
import type { Compilable, KyselyPlugin, RootOperationNode, SelectQueryBuilder } from 'kysely'
import { errors } from '../errors.ts'
import { queryParams } from './query-params.ts'
import { queryTable } from './query-table.ts'
import { textSelection } from './text-selection.ts'

type AnySelect = SelectQueryBuilder<Record<string, Record<string, unknown>>, string, object>

/**
 * Runs a Kysely select over one table and tracks its rows in `em`'s identity map (rows already
 * managed come back as the same objects, with their unflushed changes; removed ones are left out).
 * The query keeps its WHERE, ORDER BY, LIMIT, DISTINCT ON, locking...; its select list is replaced by
 * every column as text (decoded as `em.find` does), so the result does not depend on the client's type
 * parsers, and a DISTINCT is dropped (every column selected, the rows are distinct already).
 * Its relations in `options.with` are read in the same message. It runs with `em`'s other reads of this tick, in one round trip on one connection
 * of `em`'s client (its parameters sent as text: see `queryParams`).
 */
export async function loadQuery(
  em: EntityManager,
  query: unknown,
  options: ReadOptions = {},
): Promise<Entity[]> {
  const builder = query as AnySelect
  const { model, qualifier } = queryTable(builder.toOperationNode(), em.schema)
  const compiled = builder
    .clearSelect()
    .select(model.columns.map((c, i) => textSelection(qualifier, c).as(`c${i}`)))
    .withPlugin(model.primaryKey.length > 0 ? WITHOUT_DISTINCT : KEEP)
    .compile()
  return em.loadRows(model.key, { text: compiled.sql, params: queryParams(compiled.parameters) }, options)
}

/**
 * Takes DISTINCT off the select of a table with a key: every column is selected, the key among them,
 * so its rows are distinct already; kept, it would refuse an ORDER BY on a column (a select list of
 * texts holds none of the columns: `for SELECT DISTINCT, ORDER BY expressions must appear in select
 * list`). DISTINCT ON is kept: it picks rows. A view without a key keeps its DISTINCT.
 */
const WITHOUT_DISTINCT: KyselyPlugin = {
  transformQuery({ node }) {
    if (node.kind !== 'SelectQueryNode') return node
    const modifiers = node.frontModifiers
    if (modifiers === undefined || !modifiers.some((m) => m.modifier === 'Distinct')) return node
    return { ...node, frontModifiers: modifiers.filter((m) => m.modifier !== 'Distinct') }
  },
  transformResult: async ({ result }) => result,
}

/** The select as it is. */
const KEEP: KyselyPlugin = {
  transformQuery: ({ node }) => node,
  transformResult: async ({ result }) => result,
}

/**
 * Runs any Kysely select (compiled, its parameters sent as text: see `queryParams`) with `em`'s other
 * reads of this tick: its rows, untracked, as the driver gives them.
 */
export async function selectQuery(
  em: EntityManager,
  query: unknown,
): Promise<readonly Record<string, unknown>[]> {
  const compiled = (query as Compilable).compile()
  const writes = writeIn(compiled.query)
  if (writes !== undefined) throw errors.writeInSelect(writes)
  return em.select({ text: compiled.sql, params: queryParams(compiled.parameters) })
}

/**
 * The kind of the node of `root` that writes, if one does: `root` itself when it is not a select (an
 * insert, update, delete, merge, or a schema change), or a `with` query of a select that is one
 * (`with gone as (delete ... returning *) select ...`). A select's subqueries cannot write.
 */
function writeIn(root: RootOperationNode): string | undefined {
  // Raw SQL (`sql` in a `with`) is the application's to know: sent as it is.
  if (root.kind === 'RawNode') return undefined
  if (root.kind !== 'SelectQueryNode') return root.kind
  for (const cte of root.with?.expressions ?? []) {
    const kind = writeIn(cte.expression as RootOperationNode)
    if (kind !== undefined) return kind
  }
  return undefined
}
