import { errors, type PipeflushError } from '../errors.ts'
import type {
  ColumnModel,
  ForeignKeyModel,
  NumericTypmod,
  RelationKind,
  ScalarType,
  SchemaModel,
  TableModel,
  UniqueModel,
  ValueMapping,
} from '../model/model.ts'
import { quoteIdentifier } from '../values/identifier.ts'
import { relationsOf } from './relations.ts'
import { recordSchemaTables } from './table-of-key.ts'

/** Everything a {@link ColumnModel} holds; the flags default to a plain NOT NULL column without default. */
export interface ColumnModelInput {
  readonly name: string
  /** See {@link ColumnModel.dbName}; left out when it is `name`. */
  readonly dbName?: string | undefined
  readonly type: ScalarType
  /** Defaults to the type name (plus `[]` for arrays), for `other` columns to `castType`. Required for enums. */
  readonly sqlType?: string | undefined
  /** Required for `other` columns: see {@link ColumnModel.castType}. */
  readonly castType?: string | undefined
  readonly inputTypmod?: number | undefined
  readonly arrayDelimiter?: string | undefined
  readonly isDomain?: boolean | undefined
  readonly isArray?: boolean | undefined
  readonly nullable?: boolean | undefined
  /** Defaults to true for identity and generated columns, else false. */
  readonly hasDefault?: boolean | undefined
  readonly identity?: 'always' | 'by default' | null | undefined
  readonly sequence?: string | null | undefined
  /** See {@link ColumnModel.sequenceDenied}. */
  readonly sequenceDenied?: boolean | undefined
  readonly generated?: boolean | undefined
  /** See {@link ColumnModel.generatedFrom}: only on a generated column. */
  readonly generatedFrom?: readonly string[] | undefined
  readonly enumLabels?: readonly string[] | undefined
  readonly maxLength?: number | undefined
  readonly numericTypmod?: NumericTypmod | undefined
  readonly timePrecision?: number | undefined
  readonly mapping?: ValueMapping | undefined
}

/** What {@link buildTableModel} needs; `sqlName` and `columnsByName` are derived. */
export interface TableModelInput {
  /** Defaults to `table`. */
  readonly kind?: RelationKind | undefined
  /** Defaults to `name`. */
  readonly key?: string | undefined
  readonly schema: string
  readonly name: string
  /** In table order. */
  readonly columns: readonly (ColumnModel | ColumnModelInput)[]
  readonly primaryKey: readonly string[]
  readonly foreignKeys?: readonly ForeignKeyModel[] | undefined
  readonly uniques?: readonly UniqueModel[] | undefined
  readonly versionColumn?: string | null | undefined
  /** Whether large inserts may be sent as COPY (see {@link TableModel.copyable}); default true. */
  readonly copyable?: boolean | undefined
  /** See {@link TableModel.selectDenied}; default false. */
  readonly selectDenied?: boolean | undefined
}

const INTEGER_TYPES: ReadonlySet<ScalarType> = new Set(['int2', 'int4', 'int8'])

/**
 * Builds a {@link ColumnModel}, filling the optional flags.
 *
 * Declared and read schemas build their columns here, so both have the same flags.
 */
export function buildColumnModel(input: ColumnModelInput): ColumnModel {
  const isArray = input.isArray ?? false
  if (input.type === 'enum' && input.sqlType === undefined) {
    throw errors.enumWithoutSqlType(input.name)
  }
  if (input.type === 'other' && input.castType === undefined) {
    throw errors.otherWithoutCastType(input.name)
  }
  const identity = input.identity ?? null
  const generated = input.generated ?? false
  const typeName = input.type === 'other' ? (input.castType as string) : input.type
  const column: ColumnModel = {
    name: input.name,
    ...(input.dbName === undefined || input.dbName === input.name ? {} : { dbName: input.dbName }),
    type: input.type,
    sqlType: input.sqlType ?? (isArray ? `${typeName}[]` : typeName),
    isArray,
    nullable: input.nullable ?? false,
    hasDefault: input.hasDefault ?? (identity !== null || generated),
    identity,
    sequence: input.sequence ?? null,
    ...(input.sequenceDenied === true && input.sequence ? { sequenceDenied: true as const } : {}),
    generated,
    ...(input.generatedFrom === undefined || input.generatedFrom.length === 0
      ? {}
      : { generatedFrom: [...input.generatedFrom] }),
    ...(input.enumLabels === undefined ? {} : { enumLabels: [...input.enumLabels] }),
    ...(input.maxLength === undefined ? {} : { maxLength: input.maxLength }),
    ...(input.numericTypmod === undefined ? {} : { numericTypmod: input.numericTypmod }),
    ...(input.timePrecision === undefined ? {} : { timePrecision: input.timePrecision }),
    ...(input.castType === undefined ? {} : { castType: input.castType }),
    ...(input.inputTypmod === undefined ? {} : { inputTypmod: input.inputTypmod }),
    ...(input.arrayDelimiter === undefined || input.arrayDelimiter === ','
      ? {}
      : { arrayDelimiter: input.arrayDelimiter }),
    ...(input.isDomain === true ? { isDomain: true } : {}),
    ...(input.mapping === undefined ? {} : { mapping: input.mapping }),
  }
  return column
}

function isColumnModel(column: ColumnModel | ColumnModelInput): column is ColumnModel {
  return (
    typeof column.sqlType === 'string' &&
    typeof column.isArray === 'boolean' &&
    typeof column.nullable === 'boolean' &&
    typeof column.hasDefault === 'boolean' &&
    column.identity !== undefined &&
    column.sequence !== undefined &&
    typeof column.generated === 'boolean'
  )
}

function configError(table: string, message: string, column?: string): PipeflushError {
  return errors.tableConfig(table, message, column)
}

/**
 * Builds a {@link TableModel}: quotes the qualified name, indexes the columns by name and checks that
 * primary key, foreign key, unique and version columns exist (foreign key targets are checked by
 * {@link buildSchemaModel}). Throws `INVALID_CONFIG` otherwise.
 *
 * One builder for declared and read schemas, so a mistake in either is caught the same way.
 */
export function buildTableModel(input: TableModelInput): TableModel {
  const key = input.key ?? input.name
  const columns = input.columns.map((c) => {
    const column = isColumnModel(c) ? c : buildColumnModel(c)
    return input.primaryKey.includes(column.name) && column.keyPart !== true
      ? { ...column, keyPart: true as const }
      : column
  })
  const columnsByName = new Map<string, ColumnModel>()
  const dbNames = new Set<string>()
  for (const column of columns) {
    const same = columnsByName.get(column.name)
    if (same !== undefined && (same.dbName ?? same.name) !== (column.dbName ?? column.name))
      throw configError(
        key,
        `columns "${same.dbName ?? same.name}" and "${column.dbName ?? column.name}" of the database are both named "${column.name}" here: rename one, or give the names option a mapping that tells them apart.`,
      )
    if (same !== undefined) throw configError(key, `column "${column.name}" is declared twice.`)
    const dbName = column.dbName ?? column.name
    if (dbNames.has(dbName)) throw configError(key, `two columns are named "${dbName}" in the database.`)
    columnsByName.set(column.name, column)
    dbNames.add(dbName)
  }
  const requireColumns = (names: readonly string[], what: string): void => {
    for (const name of names) {
      if (!columnsByName.has(name)) throw configError(key, `${what} column "${name}" does not exist.`, name)
    }
    if (new Set(names).size !== names.length) throw configError(key, `${what} lists a column twice.`)
  }
  requireColumns(input.primaryKey, 'primary key')
  const foreignKeys = input.foreignKeys ?? []
  for (const fk of foreignKeys) {
    if (fk.columns.length === 0) throw configError(key, `foreign key "${fk.name}" has no columns.`)
    requireColumns(fk.columns, `foreign key "${fk.name}"`)
    if (fk.columns.length !== fk.targetColumns.length) {
      throw configError(
        key,
        `foreign key "${fk.name}" has ${fk.columns.length} columns but references ${fk.targetColumns.length}.`,
      )
    }
  }
  const uniques = input.uniques ?? []
  for (const unique of uniques) requireColumns(unique.columns, `unique constraint "${unique.name}"`)
  const keyInputs = keyInputsOf(key, columns, columnsByName, input.primaryKey)
  const kind = input.kind ?? 'table'
  const versionColumn = input.versionColumn ?? null
  if (versionColumn !== null && kind !== 'table') {
    throw configError(key, `a ${kind} is read-only: it has no version column.`, versionColumn)
  }
  if (versionColumn !== null) {
    const column = columnsByName.get(versionColumn)
    if (column === undefined) throw configError(key, `version column "${versionColumn}" does not exist.`)
    if (!INTEGER_TYPES.has(column.type) || column.isArray) {
      throw configError(
        key,
        `version column "${versionColumn}" must be int2, int4 or int8, not ${column.sqlType}.`,
        versionColumn,
      )
    }
    if (column.nullable)
      throw configError(
        key,
        `version column "${versionColumn}" must be NOT NULL (a versionColumn given by name applies to every table with an integer column of that name: name the tables instead, { table: column }, to leave this one out).`,
        versionColumn,
      )
    if (input.primaryKey.includes(versionColumn) || column.generated) {
      throw configError(
        key,
        `version column "${versionColumn}" cannot be part of the primary key or generated.`,
        versionColumn,
      )
    }
  }
  return {
    kind,
    key,
    schema: input.schema,
    name: input.name,
    sqlName: `${quoteIdentifier(input.schema)}.${quoteIdentifier(input.name)}`,
    columns,
    columnsByName,
    primaryKey: [...input.primaryKey],
    foreignKeys,
    uniques,
    versionColumn,
    copyable: kind === 'table' && (input.copyable ?? true),
    ...(input.selectDenied === true ? { selectDenied: true as const } : {}),
    ...(keyInputs === undefined ? {} : { keyInputs }),
  }
}

/**
 * Each column a generated primary key column is computed from, with that key column (see
 * {@link TableModel.keyInputs}); undefined when there is none. A generated column's inputs must be
 * columns of the table other than itself.
 */
function keyInputsOf(
  table: string,
  columns: readonly ColumnModel[],
  columnsByName: ReadonlyMap<string, ColumnModel>,
  primaryKey: readonly string[],
): ReadonlyMap<string, string> | undefined {
  let out: Map<string, string> | undefined
  for (const column of columns) {
    const from = column.generatedFrom
    if (from === undefined) continue
    if (!column.generated)
      throw configError(
        table,
        `column "${column.name}" lists the columns it is generated from, but is not generated.`,
        column.name,
      )
    for (const name of from) {
      if (!columnsByName.has(name) || name === column.name)
        throw configError(
          table,
          `column "${column.name}" is generated from "${name}", which is not another column of the table.`,
          column.name,
        )
    }
    if (!primaryKey.includes(column.name)) continue
    out ??= new Map()
    for (const name of from) if (!out.has(name)) out.set(name, column.name)
  }
  return out
}

/**
 * Builds a {@link SchemaModel} from tables, checking that table keys are unique and that every foreign key
 * references an existing table and existing columns. Throws `INVALID_CONFIG` otherwise.
 *
 * As {@link buildTableModel}: declared and read schemas are checked alike.
 */
export function buildSchemaModel(
  tables: readonly TableModel[],
  relationNames?: Readonly<Record<string, string>>,
  partitionOf?: ReadonlyMap<string, string>,
  names?: (name: string) => string,
): SchemaModel {
  const byKey = new Map<string, TableModel>()
  for (const table of tables) {
    const same = byKey.get(table.key)
    if (same !== undefined) {
      // Read from the catalog: two relations whose names make one key (`public."a.b"` and `"a"."b"`).
      if (same.sqlName !== table.sqlName)
        throw configError(
          table.key,
          names === undefined || same.schema !== table.schema
            ? `both ${same.sqlName} and ${table.sqlName} have this key (a table of the current schema is keyed by its name, another as schema.name): leave one schema out (the schemas option), or rename one.`
            : `both ${same.sqlName} and ${table.sqlName} have this key under the names option: rename one, or give names a mapping that tells them apart.`,
        )
      throw configError(table.key, 'declared twice.')
    }
    byKey.set(table.key, table)
  }
  for (const table of tables) {
    for (const fk of table.foreignKeys) {
      const target = byKey.get(fk.target)
      if (target === undefined) {
        throw configError(table.key, `foreign key "${fk.name}" references unknown table "${fk.target}".`)
      }
      if (target.kind !== 'table') {
        throw configError(table.key, `foreign key "${fk.name}" references ${target.kind} "${fk.target}".`)
      }
      for (const name of fk.targetColumns) {
        if (!target.columnsByName.has(name)) {
          throw configError(
            table.key,
            `foreign key "${fk.name}" references unknown column "${fk.target}"."${name}".`,
          )
        }
      }
    }
  }
  const model: SchemaModel = {
    tables: byKey,
    ...(relationNames === undefined ? {} : { relationNames }),
    ...(partitionOf === undefined || partitionOf.size === 0 ? {} : { partitionOf }),
    ...(names === undefined ? {} : { names }),
  }
  for (const key of byKey.keys()) relationsOf(model, key) // bad relationNames fail here
  recordSchemaTables(byKey)
  built.add(model)
  Object.defineProperty(model, BUILT_BY_A_COPY, { value: true })
  return model
}

const built = new WeakSet<SchemaModel>()

/** Marks a schema model any copy of `@pipeflush/core` built (see {@link builtByAnotherCopy}). */
const BUILT_BY_A_COPY = Symbol.for('pipeflush.schemaModel')

/**
 * Whether `value` is a schema model another copy of `@pipeflush/core` built (two versions installed
 * side by side): refused as a `schema` option, with a message that says so.
 */
export function builtByAnotherCopy(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !built.has(value as SchemaModel) &&
    (value as { [BUILT_BY_A_COPY]?: unknown })[BUILT_BY_A_COPY] === true
  )
}

/**
 * Whether `value` is a schema model made by {@link buildSchemaModel} (`defineSchema`, `readSchema`).
 *
 * The `schema` option takes only a model built and checked here, not any object of that shape.
 */
export function isSchemaModel(value: unknown): value is SchemaModel {
  return typeof value === 'object' && value !== null && built.has(value as SchemaModel)
}
