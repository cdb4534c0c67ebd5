import { PipeflushError, type PipeflushErrorDetails } from './pipeflush-error.ts'

/**
 * Named constructors of errors about a configuration that cannot work: the client given to
 * `connect`, the flush log table, the session's settings, an option out of range. Assembled into
 * `errors` by `errors.ts`, the one entry importers use.
 */
export const configErrors = {
  /** `connect` given something that is no client of a supported driver. */
  notAClient(client: string, advice: string): PipeflushError {
    const what =
      client === 'undefined'
        ? 'No client was given (undefined).'
        : `${client} is not a client pipeflush can use.`
    return new PipeflushError('INVALID_CONFIG', `${what} ${advice}`)
  },

  /** The session's search path names no schema that exists (and `schemas` was not given). */
  noSchemaOnPath(searchPath: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `The session's search path (${searchPath === '' ? 'empty' : `"${searchPath}"`}) names no schema that exists, so there are no tables to read: pass the schemas to read (\`schemas: ['public']\`), or set the role's search_path.`,
    )
  },

  /**
   * `schemas` lists `earlier` before the session's current schema `current`, and both hold tables of
   * the same `names`: a bare name is the current schema's table (as unqualified SQL on the session
   * resolves it), where the order of `schemas` reads as a search path putting `earlier`'s first.
   */
  schemasShadowed(current: string, earlier: string, names: readonly string[]): PipeflushError {
    const shown =
      names
        .slice(0, 5)
        .map((n) => `"${n}"`)
        .join(', ') + (names.length > 5 ? '...' : '')
    return new PipeflushError(
      'INVALID_CONFIG',
      `schemas lists "${earlier}" before "${current}", the session's current schema (the first of its search path), and both have ${shown}: a bare name is always the current schema's table ("${names[0]}" would be ${current}.${names[0]}), not the first listed. List "${current}" first and write "${earlier}.${names[0]}" for the other, or make "${earlier}" the session's current schema (its search path: ALTER ROLE ... SET search_path, which poolers keep).`,
    )
  },

  /** The `flushLog` option is not a table name. */
  flushLogName(shown: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `flushLog must be a table name, not ${shown}.`)
  },

  /**
   * A `pg.Pool` given several hosts (`hosts`, as its options name them, without credentials):
   * node-postgres connects to one host, and takes a multi-host list for one host name.
   */
  pgMultiHost(hosts: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `node-postgres connects to one host, and this pg.Pool names several (${hosts}): pg would take them for one host name (or the URL for an invalid one), and every connection would fail. Give the pool one address that follows the primary (a virtual IP, HAProxy or Pgpool-II with health checks, a DNS name your failover updates), or use a postgres.js client with the multi-host URL and target_session_attrs=read-write.`,
    )
  },

  /** A client whose parser for the type text, or transform of values, changes texts: pipeflush reads every column as text. */
  textParsed(what: string, from: string, to: string, advice: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `${what} changes the text ${from} to ${to}: pipeflush selects every column it reads as text and needs it as the server sent it (its reads and the change checks of loaded rows would be wrong). ${advice}`,
    )
  },

  /** A pg.Pool made with `pipeline: true` whose clients have no pipeline mode (pg older than 8.23 ignores the option). */
  pgNoPipeline(): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      'this pg.Pool was made with `pipeline: true`, but its clients have no pipeline mode: node-postgres older than 8.23 ignores the option, and flushes would go unpipelined and unprepared without a word. Install pg >= 8.23 (npm install pg@^8.23), or leave `pipeline` out.',
    )
  },

  /** A pg.Pool's `connectionString` that node-postgres cannot parse (it would fail every connection). */
  pgInvalidUrl(): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      "the pg.Pool's connectionString is not a URL node-postgres can read, and every connection would fail: a user name or password holding @ : / ? # [ ] or % must be percent-encoded (encodeURIComponent), and the port must be a number.",
    )
  },

  /** The flush log table is missing or not as pipeflush needs it (`ddl`: how to create it). */
  flushLogTable(sqlName: string, problem: string, ddl: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `The flush log table ${sqlName} ${problem}. Create it with: ${ddl};`,
    )
  },

  /** The session's DateStyle is not ISO. */
  dateStyleNotIso(dateStyle: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `pipeflush needs DateStyle ISO (the session has "${dateStyle}"): ${sessionSetting("DateStyle = 'ISO, MDY'", "{ DateStyle: 'ISO, MDY' }", '-c DateStyle=ISO,MDY')}.`,
    )
  },

  /** The session's extra_float_digits is below 1. */
  floatDigitsTooFew(extraFloatDigits: number): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `pipeflush needs extra_float_digits >= 1 for exact floats (the session has ${extraFloatDigits}): ${sessionSetting('extra_float_digits = 1', '{ extra_float_digits: 1 }', '-c extra_float_digits=1')}.`,
    )
  },

  /** The session's array_nulls is off: an unquoted NULL in an array literal is the text NULL. */
  arrayNullsOff(): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `pipeflush needs array_nulls on (the session has it off, so a NULL pipeflush sends in an array of values would be stored as the text "NULL"): ${sessionSetting('array_nulls = on', '{ array_nulls: true }', '-c array_nulls=on')}.`,
    )
  },

  /** A configuration value out of range or of the wrong kind. */
  invalidConfig(message: string, details: PipeflushErrorDetails = {}): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', message, details)
  },
}

/** How to give every session a setting, on either driver or in the database. */
function sessionSetting(sql: string, postgresJs: string, pgOptions: string): string {
  return `on postgres.js connect with postgres(url, { connection: ${postgresJs} }), on node-postgres with new pg.Pool({ ..., options: '${pgOptions}' }), or for every client: alter database <name> set ${sql}`
}
