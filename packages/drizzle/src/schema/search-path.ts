import type { EntityManager } from '@pipeflush/core'

/**
 * The schema each name of `names` (tables no `pgSchema` places) is found in by the search path of
 * the application's connections, as PostgreSQL resolves Drizzle's unqualified SQL: the first schema
 * of the path holding such a table, else the first schema of the path (where it would be created).
 * One query, on `root`'s client.
 *
 * @example
 * await searchPathSchemas(root, ['book']) // Map { 'book' => 'tenant_a' } with search_path tenant_a
 */
export async function searchPathSchemas(
  root: EntityManager,
  names: readonly string[],
): Promise<Map<string, string>> {
  const rows = await root.select({ text: SEARCH_PATH_SQL, params: [JSON.stringify(names)] })
  return new Map(rows.map((row) => [String(row['name']), String(row['schema'])]))
}

const SEARCH_PATH_SQL = `select t.name, coalesce(n.nspname, current_schema(), 'public') as schema
from json_array_elements_text($1::json) as t(name)
left join pg_catalog.pg_class c on c.oid = to_regclass(quote_ident(t.name))
left join pg_catalog.pg_namespace n on n.oid = c.relnamespace`
