import type { Entity, EntityManager, ReadOptions } from '@pipeflush/core'
import { queryParamTexts } from '@pipeflush/core'
import {
  AliasNode,
  type Compilable,
  IdentifierNode,
  type KyselyPlugin,
  type RootOperationNode,
  SelectionNode,
  type SelectQueryBuilder,
  TableNode,
} from 'kysely'
import { errors } from '../errors.ts'
import { rowsAsKyselyGives } from '../names/camel-case.ts'
import { queryTable } from './query-table.ts'
import { textSelection } from './text-selection.ts'

type AnySelect = SelectQueryBuilder<Record<string, Record<string, unknown>>, string, object>

/**
 * Runs a Kysely select over one table and tracks its rows in `em`'s identity map (rows already
 * managed come back as the same objects, with their unflushed changes; removed ones are left out).
 * The query keeps its WHERE, ORDER BY, LIMIT, DISTINCT, locking...; its select list is replaced by
 * every column as text (decoded as `em.find` does), so the result does not depend on the client's type
 * parsers (a DISTINCT select selects its ORDER BY expressions too: see `ORDER_SELECTED`).
 * Its relations in `options.with` are read in the same message. It runs with `em`'s other reads of this tick, in one round trip on one connection
 * of `em`'s client (its parameters sent as text: see `queryParamTexts`).
 */
export async function loadQuery(
  em: EntityManager,
  query: unknown,
  options: ReadOptions = {},
): Promise<Entity[]> {
  const builder = query as AnySelect
  // Where the application names the database's tables and columns otherwise (Kysely's
  // CamelCasePlugin), the query as its plugins make it: the database's names, which the server reads.
  const node = em.schema.names === undefined ? builder.toOperationNode() : builder.compile().query
  const { model, qualifier } = queryTable(node, em.schema)
  const compiled = builder
    .clearSelect()
    .select(model.columns.map((c, i) => textSelection(qualifier, c).as(`c${i}`)))
    .withPlugin(ORDER_SELECTED)
    .withPlugin(qualifiedFrom(model.schema))
    .compile()
  return em.loadRows(model.key, { text: compiled.sql, params: queryParamTexts(compiled.parameters) }, options)
}

/**
 * A DISTINCT select ordered by expressions selects them too (`o0, o1...`, beside the columns `c0...`,
 * which are all that is read): its select list is every column as text, which holds none of the
 * expressions an ORDER BY names, and PostgreSQL refuses that (`for SELECT DISTINCT, ORDER BY
 * expressions must appear in select list`). Being the row's own values, they change no row's
 * distinctness. DISTINCT ON needs no such column.
 */
const ORDER_SELECTED: KyselyPlugin = {
  transformQuery({ node }) {
    if (node.kind !== 'SelectQueryNode') return node
    const items = node.orderBy?.items
    if (items === undefined || !node.frontModifiers?.some((m) => m.modifier === 'Distinct')) return node
    const ordered = items.map((item, i) =>
      SelectionNode.create(AliasNode.create(item.orderBy, IdentifierNode.create(`o${i}`))),
    )
    return { ...node, selections: [...(node.selections ?? []), ...ordered] }
  },
  transformResult: async ({ result }) => result,
}

/**
 * The query's FROM table named with its schema (`schema`, the one the entity manager's table was read
 * from) when the query names none: its rows are tracked as that table's, so they must be read from it,
 * whatever the search path of the connection that runs the query (one switched to another tenant's
 * schema on a pooled connection would read that tenant's rows, and a flush write them back to this
 * table's). Its columns, qualified by the bare name, still resolve to it.
 */
function qualifiedFrom(schema: string): KyselyPlugin {
  return {
    transformQuery({ node }) {
      if (node.kind !== 'SelectQueryNode' || node.from === undefined) return node
      const [from] = node.from.froms
      const aliased = from !== undefined && AliasNode.is(from)
      const table = aliased ? from.node : from
      if (table === undefined || !TableNode.is(table) || table.table.schema !== undefined) return node
      // A `with` query of that name is what the bare name reads: left as the application wrote it.
      const name = table.table.identifier.name
      if (node.with?.expressions.some((cte) => cte.name.table.table.identifier.name === name)) return node
      const qualified = TableNode.createWithSchema(schema, name)
      const item = aliased ? AliasNode.create(qualified, from.alias) : qualified
      return { ...node, from: { ...node.from, froms: [item] } }
    },
    transformResult: async ({ result }) => result,
  }
}

/**
 * Runs any Kysely select (compiled, its parameters sent as text: see `queryParamTexts`) with `em`'s other
 * reads of this tick: its rows, untracked, as the driver gives them, renamed as `db` (the application's
 * Kysely) renames a result's columns (its `CamelCasePlugin`).
 */
export async function selectQuery(
  em: EntityManager,
  query: unknown,
  db: object,
): Promise<readonly Record<string, unknown>[]> {
  const compiled = (query as Compilable).compile()
  const writes = writeIn(compiled.query)
  if (writes !== undefined) throw errors.writeInSelect(writes)
  const rows = await em.select({ text: compiled.sql, params: queryParamTexts(compiled.parameters) })
  return rowsAsKyselyGives(db, rows)
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
