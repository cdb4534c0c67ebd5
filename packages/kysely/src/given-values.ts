import type { SchemaModel, TableModel } from '@pipeflush/core'
import { errors } from './errors.ts'
import { jsonValueOf } from './json-text.ts'

/** The json and jsonb columns (not arrays of them) of each table, found once per table. */
const jsonColumnsOf = new WeakMap<TableModel, ReadonlySet<string>>()

function jsonColumns(table: TableModel): ReadonlySet<string> {
  let found = jsonColumnsOf.get(table)
  if (found === undefined) {
    // A column with a mapping takes the application's own values (the mapping writes them).
    found = new Set(
      table.columns
        .filter((c) => (c.type === 'json' || c.type === 'jsonb') && !c.isArray && c.mapping === undefined)
        .map((c) => c.name),
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
 * - a string given to a json or jsonb column (not an array of them, nor one with a mapping) is JSON
 *   text, as Kysely sends it (its `JSONColumnType` and kysely-codegen's `Json` insert a string):
 *   parsed, so that the row stores, and the entity holds, the value the text is (a JSON string value
 *   is given as its text: `'"dark"'`; a json column stores it as `JSON.stringify` writes it, its
 *   spacing and key order not kept). Text that is not JSON, a number the parse would change, or the
 *   text `null` is `INVALID_VALUE`, before anything is sent (see `jsonValueOf`).
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
  // Core says what is wrong with anything but an object of values.
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return values
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
  const parsed = jsonValueOf(text)
  if ('problem' in parsed) throw errors.invalidJsonText(call, table, column, parsed.problem)
  return parsed.value
}
