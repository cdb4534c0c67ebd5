import { PipeflushError } from './pipeflush-error.ts'

/**
 * Named constructors of errors about the schema, read from the catalog or declared in code, and
 * what it lets pipeflush write: unknown tables and columns, tables without a key, views, generated
 * columns, sequences. Assembled into `errors` by `errors.ts`, the one entry importers use.
 */
export const schemaErrors = {
  /**
   * A new row leaves out a key column filled by a sequence the role may not draw from (neither USAGE
   * nor UPDATE on it): the server would refuse its DEFAULT too. Nothing was sent.
   */
  sequenceDenied(table: string, column: string, sequence: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `A new row of ${table} leaves out its key column "${column}", filled by sequence ${sequence}, which this role may not use (it needs USAGE or UPDATE on it): grant it (GRANT USAGE ON SEQUENCE ${sequence} TO ...), or give the key. Nothing was sent.`,
      { table, column },
    )
  },

  /**
   * A write to a view or materialized view (`kind`): pipeflush reads their rows but never writes them.
   * `what` says what was attempted (`create`, `an assignment to "name"`, ...).
   */
  readOnly(table: string, kind: string, what: string, column?: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table} is a ${kind}: pipeflush reads its rows (find, load) but does not write them (${what}). Write the tables it reads instead.`,
      { table, column },
    )
  },

  /** `load(table, key)` of a view without a key (views have none in the catalog). */
  noKeyToLoad(table: string, kind: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table} is a ${kind} without a key: find its rows with find(), not load().`,
      { table },
    )
  },

  /** A row of a view given as the value of `table.column`: it cannot stand for a key. */
  viewRowAsKey(table: string, column: string, view: string, kind: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column}: a row of ${kind} ${view} cannot stand for a key; assign the value itself.`,
      { table, column },
    )
  },

  /** A relation named in a graph load's `with` that `table` does not have. Nothing was sent. */
  unknownRelation(table: string, name: string, known: readonly string[]): PipeflushError {
    const list = known.length > 0 ? known.join(', ') : 'none: no foreign key involves it'
    return new PipeflushError(
      'UNKNOWN_RELATION',
      `${table} has no relation "${name}" (its relations: ${list}). Nothing was sent.`,
      { table },
    )
  },

  /** A find condition names a column the table lacks. */
  unknownFindColumn(table: string, column: string): PipeflushError {
    return new PipeflushError('UNKNOWN_COLUMN', `${table} has no column "${column}" (in a find condition).`, {
      table,
      column,
    })
  },

  /** A column of type enum defined without its sqlType. */
  enumWithoutSqlType(column: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Enum column "${column}" needs its sqlType.`, { column })
  },

  /** A column of another type defined without its castType. */
  otherWithoutCastType(column: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Column "${column}" of another type needs its castType.`, {
      column,
    })
  },

  /** A table of a schema definition that cannot be (`why`). */
  tableConfig(table: string, why: string, column?: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Table "${table}": ${why}`, { table, column })
  },

  /**
   * A table not in the schema (`shown`: as messages show it; `known`: the tables there are, none for
   * a schema without tables).
   */
  unknownTable(shown: string, known: string, table: string | undefined): PipeflushError {
    const message =
      known === ''
        ? `Unknown table ${shown}: the schema holds no tables (is the connection's database the one the tables are in? a declared schema, one that declares it?).`
        : `Unknown table ${shown} (known: ${known}). The tables are those read at connect, from the schemas of the search path (or the \`schemas\` option), or those declared: a table created since is known once the catalog is read again (\`await em.refreshSchema()\`, then a new \`fork()\`), one in another schema the \`schemas\` option.`
    return new PipeflushError('UNKNOWN_TABLE', message, { table })
  },

  /** A leaf partition named as a table: its partitioned table (`partitioned`) is read and written instead. */
  partitionNotTable(shown: string, partitioned: string, table: string): PipeflushError {
    return new PipeflushError(
      'UNKNOWN_TABLE',
      `Unknown table ${shown}: it is a partition of "${partitioned}". Read and write its rows through "${partitioned}" (the server routes each row to its partition; a find on it with a condition on the partition key reads that partition only).`,
      { table },
    )
  },

  /** A table without a primary key, whose rows cannot be tracked. */
  noPrimaryKey(table: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `Table ${table} has no primary key: pipeflush cannot track its rows.`,
      { table },
    )
  },

  /** A column not in the table (`shown`: the name as messages show it; `columns`: the table's). */
  unknownColumn(table: string, shown: string, columns: string, column: string | undefined): PipeflushError {
    return new PipeflushError('UNKNOWN_COLUMN', `${table} has no column ${shown} (columns: ${columns}).`, {
      table,
      column,
    })
  },

  /** A write to a generated column. */
  generatedColumn(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table}.${column} is a generated column: it cannot be written.`,
      {
        table,
        column,
      },
    )
  },

  /** An update of a GENERATED ALWAYS identity column. */
  identityAlways(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table}.${column} is GENERATED ALWAYS AS IDENTITY: it cannot be updated.`,
      { table, column },
    )
  },

  /** A new row was given a value for an `identity always` column. Nothing was sent. */
  identityAlwaysGiven(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column} is GENERATED ALWAYS AS IDENTITY: a new row takes its value from the identity, not from the application (leave it out, or declare the column GENERATED BY DEFAULT to give values). Nothing was sent.`,
      { table, column },
    )
  },

  /** Reading the schema from the catalog failed (`cause`: the driver's error). */
  schemaReadFailed(cause: unknown): PipeflushError {
    return new PipeflushError(
      'SCHEMA_READ_FAILED',
      `Reading the schema from pg_catalog failed: ${String((cause as Error)?.message ?? cause)}`,
      { cause: (cause as { cause?: unknown })?.cause ?? cause },
    )
  },
}
