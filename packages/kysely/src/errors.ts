import { PipeflushError } from '@pipeflush/core'

/**
 * Named constructors of the errors this package raises, on core's `PipeflushError` with its stable
 * codes: each condition has one code and one wording, made here and nowhere else (as core's
 * `errors.ts`, which core does not export).
 */
export const errors = {
  /** An option or argument of the factory that cannot work (`message`: what is wrong, unpunctuated). */
  invalidConfig(message: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `${message}.`)
  },

  /** A `load(query)` whose query pipeflush cannot track rows of (`why`: what is wrong with it). */
  unsupportedQuery(why: string): PipeflushError {
    return new PipeflushError('INVALID_STATE', `load(query): ${why}.`)
  },

  /**
   * A `load(query)` from a table the schema does not have (`label`: as the query names it), or from a
   * leaf partition of the table `partitioned`, whose rows are that table's.
   */
  unknownQueryTable(label: string, partitioned?: string): PipeflushError {
    const message =
      partitioned === undefined
        ? `load(query): unknown table "${label}".`
        : `load(query): unknown table "${label}": it is a partition of "${partitioned}". Select from "${partitioned}" (a condition on the partition key reads that partition only).`
    return new PipeflushError('UNKNOWN_TABLE', message, { table: label })
  },

  /**
   * A string given to a json or jsonb column (`create`, `upsert`, `assign`: `call`) that is not JSON
   * text pipeflush can store as it is (`problem`: why). Neither the text nor the parser's message
   * (which quotes it) is in the message.
   */
  invalidJsonText(call: string, table: string, column: string, problem: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${call}(${table}): ${column} is a json column, and a string given to it is JSON text (as Kysely sends it): ${problem}.`,
      { table, column },
    )
  },

  /** A query given to `select` that writes (`kind`: the Kysely node that does, `InsertQueryNode`...). */
  writeInSelect(kind: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `select(query): the query writes (a ${kind}); select runs selects only, with the reads of its tick. Write through the unit of work, or with Kysely's own execute().`,
    )
  },
} as const
