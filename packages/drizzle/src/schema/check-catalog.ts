import { type ColumnModel, readSchema, type SchemaModel, type TableModel } from '@pipeflush/core'
import { errors } from '../errors.ts'

/**
 * Reads the catalog of the schemas `model`'s tables live in (one query after the search path) and
 * throws `SCHEMA_MISMATCH` when the definitions disagree with it: a table or column the database
 * does not have, another type (or array-ness), another nullability, another primary key. The
 * message lists every disagreement, each naming the table (its key and its name in the database)
 * and the column (its property and its name in the database); the error's `table` and `column` are
 * the first one's. Columns the database has and the definitions leave out are not reported (Drizzle
 * leaves them to their defaults too).
 *
 * A definition that drifted from the database fails at start, not in the middle of a flush.
 */
export async function checkCatalog(client: unknown, model: SchemaModel): Promise<void> {
  const schemas = [...new Set([...model.tables.values()].map((t) => t.schema))]
  const catalog = await readSchema(client, { schemas })
  const found: { table: string; column?: string; what: string }[] = []
  for (const table of model.tables.values()) {
    const label = `${table.key} (${table.schema}.${table.name})`
    const stored = [...catalog.tables.values()].find(
      (t) => t.schema === table.schema && t.name === table.name,
    )
    if (stored === undefined) {
      found.push({ table: table.key, what: `${label}: no such table in the database` })
      continue
    }
    for (const column of table.columns) {
      const dbName = column.dbName ?? column.name
      const named = `${label}: column ${column.name}${dbName === column.name ? '' : ` ("${dbName}")`}`
      const other = stored.columnsByName.get(dbName)
      if (other === undefined) {
        found.push({
          table: table.key,
          column: column.name,
          what: `${named}: no such column in the database`,
        })
        continue
      }
      const [ours, theirs] = [typeName(column), typeName(other)]
      // A domain's column declared by the domain's name (a custom type's dataType) is the same column.
      if (ours !== theirs && ours !== domainName(other)) {
        found.push({
          table: table.key,
          column: column.name,
          what: `${named} is ${ours} in the definitions, ${theirs} in the database`,
        })
      } else if (column.nullable !== other.nullable) {
        const say = (nullable: boolean) => (nullable ? 'nullable' : 'not null')
        found.push({
          table: table.key,
          column: column.name,
          what: `${named} is ${say(column.nullable)} in the definitions, ${say(other.nullable)} in the database`,
        })
      }
    }
    const key = dbKey(table)
    if (key.join(',') !== stored.primaryKey.join(',')) {
      found.push({
        table: table.key,
        what: `${label}: its primary key is (${key.join(', ')}) in the definitions, (${stored.primaryKey.join(', ') || 'none'}) in the database`,
      })
    }
  }
  const first = found[0]
  if (first === undefined) return
  const what = found.map((f) => f.what).join('; ')
  throw errors.schemaMismatch(
    first.table,
    `the table definitions disagree with the database (${found.length}): ${what}`,
    first.column,
  )
}

/** The primary key of a model table by database names. */
function dbKey(table: TableModel): string[] {
  return table.primaryKey.map((name) => {
    const column = table.columnsByName.get(name)!
    return column.dbName ?? column.name
  })
}

/**
 * A column's type as compared: pipeflush's type for the types it has a codec for, the unqualified
 * type name for the others (`inet`, `vector`, `timestamptz` declared as text) and enums, `[]` for
 * arrays. A domain compares as the type it is over.
 */
function typeName(column: ColumnModel): string {
  const name =
    column.type === 'other' || column.type === 'enum'
      ? unqualified(column.type === 'other' ? (column.castType ?? column.sqlType) : column.sqlType)
      : column.type
  return `${name}${column.isArray ? '[]' : ''}`
}

/** The unqualified name of a domain column's type (`posint`, `posint[]`), or undefined for another column. */
function domainName(column: ColumnModel): string | undefined {
  if (column.isDomain !== true) return undefined
  return `${unqualified(column.sqlType)}${column.isArray ? '[]' : ''}`
}

/** `"public"."mood"[]` -> `mood`; `"bit"` -> `bit`; `timestamptz` -> `timestamptz`. */
function unqualified(sql: string): string {
  const bare = sql.replace(/\[\]$/, '')
  const last = /(?:"((?:[^"]|"")+)"|([^."]+))$/.exec(bare)
  return (last?.[1]?.replace(/""/g, '"') ?? last?.[2] ?? bare).toLowerCase()
}
