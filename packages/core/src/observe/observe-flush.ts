import type { FlushReport } from '../flush/flush-report.ts'
import type { PipelineMode } from '../flush/pipeline-mode.ts'
import type { FlushPlan } from '../plan/types.ts'
import { type Logger, log } from './logger.ts'
import { failSpan, inSpan, serverAttributes, startSpan } from './tracing.ts'

/** How flushes and reads are observed (the `tracing` and `logger` options). */
export interface Observe {
  readonly logger: Logger | undefined
  /** Put statement texts (without values) in spans (`db.query.text`). */
  readonly statementTexts: boolean
  /** No spans at all (`tracing: false`). */
  readonly noSpans: boolean
}

/** What a flush is, for its span: the client's. */
export interface FlushSubject {
  readonly driver: { readonly name: string; readonly address: string; readonly database?: string | undefined }
  readonly mode: PipelineMode
}

/**
 * Runs one flush (`flush(onPlanned)`) inside a CLIENT span `pipeflush flush`, following
 * OpenTelemetry's database conventions (`db.system.name`, `db.namespace`, `db.operation.name` BATCH,
 * `db.operation.batch.size` the statements sent, `db.query.summary`, `server.address`/`server.port`,
 * `error.type` and status ERROR on failure) and pipeflush's own (`pipeflush.mode`, `.driver`,
 * `.round_trips` equal to the report's, `.bytes_sent`, `.bytes_received`, `.waves`,
 * `.rows.inserted`...). The driver's spans nest under it. Logs the plan's statements (debug), the
 * report (info) or the failure (warn).
 *
 * One wrapper, so every flush is traced and logged the same, whatever its mode or outcome.
 */
export async function observeFlush(
  observe: Observe,
  subject: FlushSubject,
  flush: (onPlanned: ((plan: FlushPlan) => void) | undefined) => Promise<FlushReport>,
): Promise<FlushReport> {
  const span = observe.noSpans
    ? undefined
    : startSpan('pipeflush flush', 'client', () => ({
        'db.system.name': 'postgresql',
        'db.namespace': subject.driver.database,
        'db.operation.name': 'BATCH',
        ...serverAttributes(subject.driver.address),
        'pipeflush.mode': subject.mode,
        'pipeflush.driver': subject.driver.name,
      }))
  const wantsPlan = observe.logger?.debug !== undefined || (span !== undefined && observe.statementTexts)
  const onPlanned = wantsPlan
    ? (plan: FlushPlan) => {
        const statements = plan.waves.flat()
        if (span !== undefined && observe.statementTexts)
          span.setAttributes({ 'db.query.text': statements.map((s) => s.sql).join(';\n') })
        log(
          observe.logger,
          'debug',
          {
            statements: statements.map((s) => ({
              kind: s.kind,
              table: s.table,
              rows: s.keys.length,
              sql: s.sql,
            })),
          },
          'pipeflush: flush planned',
        )
      }
    : undefined
  let report: FlushReport
  try {
    report = await inSpan(span, () => flush(onPlanned))
  } catch (e) {
    failSpan(span, e)
    log(
      observe.logger,
      'warn',
      { code: (e as { code?: unknown }).code, message: (e as Error).message },
      'pipeflush: flush failed',
    )
    throw e
  }
  if (span !== undefined) {
    span.setAttributes({
      'db.operation.batch.size': report.statements,
      'db.query.summary': report.summary,
      'pipeflush.flush_id': report.flushId,
      'pipeflush.round_trips': report.roundTrips,
      'pipeflush.connect_round_trips': report.connectRoundTrips,
      'pipeflush.connected': report.connected,
      'pipeflush.id_fetch': report.idFetch,
      'pipeflush.waves': report.waves,
      'pipeflush.bytes_sent': report.bytesSent,
      'pipeflush.bytes_received': report.bytesReceived,
      'pipeflush.rows.inserted': report.inserted,
      'pipeflush.rows.updated': report.updated,
      'pipeflush.rows.deleted': report.deleted,
      'pipeflush.rows.upserted': report.upserted,
    })
    span.end()
  }
  // The report copied only for a logger that takes it (a copy: the logger may keep or change it).
  if (observe.logger?.info !== undefined) log(observe.logger, 'info', { ...report }, 'pipeflush: flush done')
  return report
}
