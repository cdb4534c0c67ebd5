import type { SchemaModel, TableModel } from '@pipeflush/core'
import { errors } from './errors.ts'

/** The json and jsonb columns (not arrays of them) of each table, found once per table. */
const jsonColumnsOf = new WeakMap<TableModel, ReadonlySet<string>>()

function jsonColumns(table: TableModel): ReadonlySet<string> {
  let found = jsonColumnsOf.get(table)
  if (found === undefined) {
    found = new Set(
      table.columns.filter((c) => (c.type === 'json' || c.type === 'jsonb') && !c.isArray).map((c) => c.name),
    )
    jsonColumnsOf.set(table, found)
  }
  return found
}

/**
 * The values given to `create`, `upsert` or `assign` as Kysely means them, in the form core takes:
 * - a property given as `undefined` is left out, as Kysely's insert and update leave it out (its
 *   `Insertable` types a generated or optional column `T | undefined`): the column's default or NULL
 *   at create, the entity's value unchanged at assign;
 * - a string given to a json or jsonb column is JSON text, as Kysely sends it (its `JSONColumnType`
 *   and kysely-codegen's `Json` insert a string): parsed, so that the row stores, and the entity holds,
 *   the value the text is (a JSON string value is given as its text: `'"dark"'`). Text that is not
 *   JSON is `INVALID_VALUE`, before anything is sent.
 * `values` itself when nothing is left out or parsed; a table the schema does not have is left to core
 * (`UNKNOWN_TABLE`).
 *
 * @example
 * given(schema, 'profile', { prefs: '{"theme":"dark"}', bio: undefined }, 'create') // { prefs: { theme: 'dark' } }
 */
export function given(
  schema: SchemaModel,
  tableKey: string,
  values: Record<string, unknown>,
  call: 'create' | 'upsert' | 'assign',
): Record<string, unknown> {
  if (typeof values !== 'object' || values === null) return values // core says what is wrong
  const table = schema.tables.get(tableKey)
  const json = table === undefined ? undefined : jsonColumns(table)
  let out: Record<string, unknown> | undefined
  for (const name of Object.keys(values)) {
    const value = values[name]
    if (value === undefined) {
      out ??= { ...values }
      delete out[name]
    } else if (typeof value === 'string' && json?.has(name) === true) {
      out ??= { ...values }
      out[name] = parsedJson(value, tableKey, name, call)
    }
  }
  return out ?? values
}

function parsedJson(text: string, table: string, column: string, call: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw errors.invalidJsonText(call, table, column)
  }
}
