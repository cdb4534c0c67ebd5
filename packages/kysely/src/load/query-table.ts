import type { SchemaModel, TableModel } from '@pipeflush/core'
import type { OperationNode, SelectQueryNode } from 'kysely'
import { errors } from '../errors.ts'

/** The table a Kysely select reads, and the name its columns are qualified with in the query. */
export interface QueryTable {
  readonly model: TableModel
  /** `[alias]`, `[table]` or `[schema, table]`: the qualifier of the table's columns in the query. */
  readonly qualifier: readonly string[]
}

/**
 * The one table `node` selects from, checked: one FROM item that is a table (aliased or not), no
 * joins, no GROUP BY, no UNION. Its rows are then rows of that table.
 *
 * Only rows of one table can be tracked, as that table's entities.
 */
export function queryTable(node: OperationNode, schema: SchemaModel): QueryTable {
  if (node.kind !== 'SelectQueryNode') fail(`expected a select query, got a ${node.kind}`)
  const select = node as SelectQueryNode
  const froms = select.from?.froms ?? []
  if (froms.length !== 1) fail(`the query must select from exactly one table (it has ${froms.length})`)
  if ((select.joins?.length ?? 0) > 0) fail('the query must not join other tables')
  if (select.groupBy || select.having) fail('the query must not group rows')
  if ((select.setOperations?.length ?? 0) > 0)
    fail('the query must not combine selects (union, intersect, except)')
  const from = froms[0] as OperationNode
  const aliased =
    from.kind === 'AliasNode' ? (from as unknown as { node: OperationNode; alias: OperationNode }) : null
  const table = (aliased ? aliased.node : from) as OperationNode & {
    table?: { schema?: { name: string }; identifier: { name: string } }
  }
  if (table.kind !== 'TableNode' || !table.table)
    fail('the query must select from a table, not a subquery or function')
  const name = table.table.identifier.name
  const schemaName = table.table.schema?.name
  const model = findTable(schema, name, schemaName)
  const alias = aliased ? (aliased.alias as { name?: string }).name : undefined
  const qualifier = alias !== undefined ? [alias] : schemaName !== undefined ? [schemaName, name] : [name]
  return { model, qualifier }
}

function findTable(schema: SchemaModel, name: string, schemaName: string | undefined): TableModel {
  // A bare name is the table of the session's current schema, keyed by its name (as the application
  // names it: see `SchemaModel.names`).
  const bare = schema.names?.(name) ?? name
  for (const model of schema.tables.values()) {
    if (model.name !== name) continue
    if (schemaName === undefined ? model.key === bare : model.schema === schemaName) return model
  }
  // As the application names it (and the partitions' keys are).
  const named = schema.names ?? ((n: string) => n)
  const label = schemaName === undefined ? bare : `${named(schemaName)}.${named(name)}`
  throw errors.unknownQueryTable(label, schema.partitionOf?.get(label))
}

function fail(why: string): never {
  throw errors.unsupportedQuery(why)
}
