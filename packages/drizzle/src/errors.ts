import { PipeflushError } from '@pipeflush/core'

/**
 * Named constructors of the errors this package raises, on core's `PipeflushError` with its stable
 * codes: each condition has one code and one wording, made here and nowhere else.
 */
export const errors = {
  /** An option or argument of the factory that cannot work (`message`: what is wrong, unpunctuated). */
  invalidConfig(message: string, table?: string, column?: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `${message}.`, { table, column })
  },

  /** A Drizzle table given to an entity manager that is not in the factory's schema. */
  unknownTable(name: string): PipeflushError {
    return new PipeflushError(
      'UNKNOWN_TABLE',
      `The table "${name}" is not in the factory's schema: give it in the schema object (the one given to drizzle(), or the factory's \`schema\` option).`,
      { table: name },
    )
  },

  /** A table of the schema that pipeflush cannot track (`why`: what its definition lacks). */
  untrackedTable(table: string, why: string): PipeflushError {
    return new PipeflushError('UNSUPPORTED_TABLE', `${table}: ${why}.`, { table })
  },

  /**
   * A query `method` (`load(query)`, `select(query)`) cannot run (`why`: what is wrong with it), found
   * before anything is sent.
   */
  unsupportedQuery(method: string, why: string): PipeflushError {
    return new PipeflushError('INVALID_STATE', `${method}: ${why}.`)
  },

  /**
   * A `$defaultFn` or `$onUpdate` (`kind`) of `table`'s `property` answered a Drizzle `sql` expression.
   * Nothing was sent.
   */
  sqlClientDefault(table: string, property: string, kind: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${property}: its ${kind} answered a Drizzle \`sql\` expression, which pipeflush cannot write (its statements carry values): answer a value (\`new Date()\` for \`now()\`), or leave the column to a database DEFAULT or trigger. Nothing was sent.`,
      { table, column: property },
    )
  },

  /**
   * The table definitions disagree with the database's catalog (`checkDatabase`): `what` says how,
   * naming the table (its key, and its name in the database) and the column (its property).
   */
  schemaMismatch(table: string, what: string, column?: string): PipeflushError {
    return new PipeflushError('SCHEMA_MISMATCH', `${table}: ${what}.`, { table, column })
  },
} as const
