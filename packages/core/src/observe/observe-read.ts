import { log } from './logger.ts'
import type { Observe } from './observe-flush.ts'
import { type Attributes, failSpan, inSpan, serverAttributes, startSpan, type TraceSpan } from './tracing.ts'

/** Where a read batch went, for its span: the server's driver. */
export interface ReadSubject {
  readonly name: string
  readonly address: string
  readonly database?: string | undefined
}

/** One statement of a read batch, as its span and logs show it. */
export interface ObservedStatement {
  readonly text: string
  /** The table it reads, if one. */
  readonly table?: string | undefined
}

/**
 * Runs one read batch (`read(span)`) inside a CLIENT span `pipeflush read`, following OpenTelemetry's
 * database conventions (`db.system.name`, `db.namespace`, `db.operation.name` SELECT or BATCH SELECT,
 * `db.operation.batch.size`, `db.query.summary` the tables read, `server.address`/`server.port`, the
 * texts with `tracing: { statements: true }`, `error.type` and status ERROR on failure) with
 * pipeflush's own (`pipeflush.driver`, and `extra`: which server answered and why). `read` may add
 * what the batch cost (`pipeflush.round_trips`, bytes) to the span. Logs the statements (debug) and a
 * failure (warn).
 *
 * As `observeFlush` is for flushes: every read batch is traced and logged the same, wherever it went.
 *
 * @example
 * const rows = await observeRead(observe, driver, statements, { 'pipeflush.server': 'primary' }, (span) => send(span))
 */
export function observeRead<T>(
  observe: Observe | undefined,
  subject: ReadSubject,
  statements: readonly ObservedStatement[],
  extra: Attributes,
  read: (span: TraceSpan | undefined) => Promise<T>,
): Promise<T> {
  const span = observe?.noSpans
    ? undefined
    : startSpan('pipeflush read', 'client', () => ({
        'db.system.name': 'postgresql',
        'db.namespace': subject.database,
        'db.operation.name': statements.length === 1 ? 'SELECT' : 'BATCH SELECT',
        'db.operation.batch.size': statements.length > 1 ? statements.length : undefined,
        'db.query.summary': `SELECT ${tablesOf(statements).join(' ')}`.trim(),
        ...(observe?.statementTexts ? { 'db.query.text': statements.map((s) => s.text).join(';\n') } : {}),
        ...serverAttributes(subject.address),
        'pipeflush.driver': subject.name,
        ...extra,
      }))
  // The statements listed only for a logger that takes them: not made for every read batch.
  if (observe?.logger?.debug !== undefined)
    log(
      observe.logger,
      'debug',
      { statements: statements.map((s) => ({ table: s.table, sql: s.text })) },
      'pipeflush: reads',
    )
  // Nothing to end or log: the read's own promise, without one more around it.
  if (span === undefined && observe?.logger === undefined) return read(undefined)
  return (span === undefined ? read(undefined) : inSpan(span, () => read(span))).then(
    (value) => {
      span?.end()
      return value
    },
    (e: unknown) => {
      failSpan(span, e)
      const fields = { code: (e as { code?: unknown }).code, message: (e as Error).message }
      log(observe?.logger, 'warn', fields, 'pipeflush: read failed')
      throw e
    },
  )
}

/** The tables `statements` read, each once, in the order met. */
function tablesOf(statements: readonly ObservedStatement[]): string[] {
  return [...new Set(statements.flatMap((s) => (s.table === undefined ? [] : [s.table])))]
}
