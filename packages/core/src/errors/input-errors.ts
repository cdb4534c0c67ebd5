import { type ErrorCode, PipeflushError, type PipeflushErrorDetails } from './pipeflush-error.ts'

/**
 * Named constructors of errors about arguments and values: what an argument must be, a value no
 * column stores, upserts and changes the planner cannot write, identifiers and literals PostgreSQL
 * cannot take. Assembled into `errors` by `errors.ts`, the one entry importers use.
 */
export const inputErrors = {
  /** A `lock` read option that is not one of the row locks. */
  invalidLock(value: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `lock must be 'update' or 'share', not ${value}. Nothing was sent.`,
    )
  },

  /** A row to plan lacks a primary key column that nothing fills. Nothing was sent. */
  keyMissing(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `A row of "${table}" lacks its primary key column "${column}".`,
      {
        table,
        column,
      },
    )
  },

  /** A change the planner cannot write as given (`why`: what is wrong with it). Nothing was sent. */
  invalidChange(
    table: string,
    why: string,
    details: { readonly column?: string | undefined; readonly keys?: readonly unknown[] } = {},
  ): PipeflushError {
    return new PipeflushError('INVALID_STATE', `Table "${table}": ${why}`, { table, ...details })
  },

  /**
   * Two new rows of one flush share a primary key (`shown`: the key as messages show it, `key=7`,
   * a text only by its kind; `key` itself on the error).
   */
  duplicateNewKey(table: string, shown: string, key: unknown): PipeflushError {
    return new PipeflushError('DUPLICATE_KEY', `Two new rows of "${table}" share a key (${shown}).`, {
      table,
      keys: [key],
    })
  },

  /** An upsert without conflict columns. */
  upsertWithoutConflict(table: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Upsert into "${table}": name the conflict columns.`, {
      table,
    })
  },

  /**
   * An upsert's row does not supply one of its conflict columns (`role` 'conflict') or of its update
   * columns ('update').
   */
  upsertColumnMissing(
    table: string,
    column: string,
    role: 'conflict' | 'update' = 'conflict',
  ): PipeflushError {
    const why =
      role === 'conflict'
        ? 'an upsert finds its row by the values of its conflict columns: give each one'
        : 'its `update` names it: an upsert sets the update columns to the values the row gives; give it, or leave it out of `update`'
    return new PipeflushError(
      'INVALID_VALUE',
      `Upsert into "${table}": the row does not supply "${column}" (${why}).`,
      {
        table,
        column,
      },
    )
  },

  /**
   * A reference in `table.column` to an entity upserted in this unit of work cannot be resolved by its
   * conflict key (`why`): a conflict value changed after the upsert, is null, or is not known yet.
   */
  upsertReferenceInvalid(table: string, column: string, target: string, why: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `"${table}"."${column}" refers to a row upserted into "${target}": ${why}`,
      { table, column },
    )
  },

  /** An upsert would update one of its conflict or key columns. */
  upsertUpdatesKey(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `Upsert into "${table}": "${column}" is a conflict or key column and cannot be updated.`,
      { table, column },
    )
  },

  /** An upsert would write the version column, which it increments when it updates a row. */
  upsertUpdatesVersion(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `Upsert into "${table}": "${column}" is the version column: an upsert that updates a row increments it, as an update does; leave it out of \`update\`.`,
      { table, column },
    )
  },

  /**
   * New rows reference each other in a cycle of non-deferred foreign keys none of which can be written
   * later (`links`: each reference as `child -> parent (fk; why)`): no insert order exists. Nothing was
   * sent.
   */
  unresolvableCycle(table: string, links: readonly string[], keys: readonly unknown[]): PipeflushError {
    return new PipeflushError(
      'UNRESOLVABLE_CYCLE',
      `New rows reference each other in a cycle of non-deferred foreign keys: ${links.join(', ')}. ` +
        'A key is inserted NULL and set once both rows exist only where it is nullable, in a row whose ' +
        'primary key the flush knows, and not in an upsert whose row may exist (unless it conflicts on ' +
        'the primary key and updates that column). No insert order exists; make one of these foreign ' +
        'keys nullable or DEFERRABLE INITIALLY DEFERRED, or flush one of the rows first.',
      { table, keys },
    )
  },

  /** A `with` tree holding something else than `true` or an object of relations. Nothing was sent. */
  invalidWith(path: string, value: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${path} must be true or an object of relations, not ${value}. Nothing was sent.`,
    )
  },

  /**
   * A `with` option (`$where`, `$orderBy`, `$limit`, `$count`) that cannot be read at `path`: `why`
   * says what it must be. Nothing was sent.
   */
  invalidWithOption(path: string, why: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `${path}: ${why}. Nothing was sent.`)
  },

  /**
   * A statement of the application's own SQL (`select`, `loadRows`) that cannot be sent as given:
   * `why` says what is wrong with it (its text, its parameters). Nothing was sent.
   */
  invalidStatement(what: string, why: string, details: PipeflushErrorDetails = {}): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `${what}: ${why}. Nothing was sent.`, details)
  },

  /**
   * Rows of `table` selected by the application's own SQL lack the columns `missing` names (as
   * `c1 (title)`): their values cannot be told from null. Nothing was tracked.
   */
  selectedColumnsMissing(table: string, missing: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `loadRows(${table}): the rows selected lack ${missing}: select every column of the table as text, ` +
        'aliased c0, c1... in table order. Nothing was tracked.',
      { table },
    )
  },

  /** An argument that must be an object of named values (`shown`: the value as messages show it). */
  notAnObject(
    code: ErrorCode,
    what: string,
    shown: string,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(code, `${what} must be an object of named values, not ${shown}.`, details)
  },

  /** An argument that must be an array of column names. */
  notColumnNames(
    code: ErrorCode,
    what: string,
    shown: string,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(code, `${what} must be an array of column names, not ${shown}.`, details)
  },

  /** An options object naming an option `what` does not take (see `knownOptions`). Nothing was sent. */
  unknownOption(
    code: ErrorCode,
    what: string,
    name: string,
    names: readonly string[],
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(
      code,
      `${what}: unknown option "${name}"; the options are ${names.join(', ')}. Nothing was sent.`,
      details,
    )
  },

  /** `wasCommitted` given something else than a uuid. */
  flushIdNotUuid(shown: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `A flush id is a uuid, not ${shown}.`)
  },

  /** A value no column can store, met when taking a snapshot. */
  unstorableValue(table: string, column: string, cause: unknown): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column} holds a value no column can store (${String((cause as Error)?.message ?? cause)}).`,
      { table, column, cause },
    )
  },

  /** `upsert(table)` with an empty conflict list. */
  upsertConflictUnnamed(table: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `upsert(${table}): name the conflict columns.`, { table })
  },

  /**
   * `upsert(table)`'s conflict names a generated column: the row cannot give its value (generated
   * columns are never written), so no upsert can find its row by it.
   */
  upsertGeneratedConflict(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `upsert(${table}): the conflict column "${column}" is a generated column, whose value a row cannot give: an upsert finds its row by the values of its conflict columns. Name a unique key the row gives (the columns "${column}" is generated from, under a unique constraint).`,
      { table, column },
    )
  },

  /** `merge(table)` of a row lacking a column. */
  mergeColumnMissing(table: string, column: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `merge(${table}): the row lacks column "${column}".`, {
      table,
      column,
    })
  },

  /** An identifier that is not a non-empty string. */
  identifierNotString(shown: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `an identifier must be a non-empty string, not ${shown}`)
  },

  /** An identifier PostgreSQL cannot take (`why`). */
  invalidIdentifier(shown: string, why: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `the identifier ${shown} ${why}`)
  },

  /** A query's parameter that is an invalid Date (see `queryParamTexts`). */
  invalidDateParam(): PipeflushError {
    return new PipeflushError('INVALID_VALUE', 'A query parameter is an invalid Date.')
  },

  /** A text[] parameter PostgreSQL cannot take (`why`). */
  invalidTextArrayParam(why: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `a text[] parameter ${why}`)
  },

  /** A SQL string literal PostgreSQL cannot take (`why`). */
  invalidSqlLiteral(why: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `a SQL string literal ${why}`)
  },

  /** A value that cannot be stored exactly in its column (`message` names where). */
  invalidValue(message: string, details: PipeflushErrorDetails = {}): PipeflushError {
    return new PipeflushError('INVALID_VALUE', message, details)
  },
}
