import type { FlushReport } from '../flush/flush-report.ts'
import type { PipelineMode } from '../flush/pipeline-mode.ts'
import { planSummary, statementCount } from '../plan/plan-flush.ts'
import type { FlushPlan } from '../plan/types.ts'
import { type Logger, log } from './logger.ts'
import { failSpan, inSpan, serverAttributes, startSpan, type TraceSpan } from './tracing.ts'

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
 * One flush, observed: a CLIENT span `pipeflush flush` around everything `em.flush()` does (its hooks
 * included), following OpenTelemetry's database conventions (`db.system.name`, `db.namespace`,
 * `db.operation.name` BATCH, `db.operation.batch.size` the statements sent, `db.query.summary`,
 * `server.address`/`server.port`, `error.type` and status ERROR on failure) and pipeflush's own
 * (`pipeflush.mode`, `.driver`, `.round_trips` equal to the report's, `.bytes_sent`,
 * `.bytes_received`, `.waves`, `.rows.inserted`...). The driver's spans nest under it. Logs the plan's
 * statements (debug), the report (info) or the failure (warn).
 *
 * One observation per flush, whatever its mode or outcome, so every flush is traced and logged the same.
 *
 * @example
 * const observed = new FlushObservation(observe, { driver, mode })
 * const report = await observed.within(() => flushUnitOfWork(uow, settings, { onPlanned: observed.onPlanned, connection }))
 * observed.succeeded(report) // or observed.failed(error)
 * observed.end()
 */
export class FlushObservation {
  readonly #observe: Observe
  readonly #span: TraceSpan | undefined
  /** The plan, once known, while a span is recorded: a failed flush's span says what it sent. */
  #plan: FlushPlan | undefined
  /** Told the plan once it is known (its statements go to the span and the debug log); undefined when nobody reads it. */
  readonly onPlanned: ((plan: FlushPlan) => void) | undefined

  constructor(observe: Observe, subject: FlushSubject) {
    this.#observe = observe
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
    this.#span = span
    const wantsPlan = observe.logger?.debug !== undefined || (span !== undefined && observe.statementTexts)
    this.onPlanned = wantsPlan
      ? (plan) => this.#planned(plan)
      : span !== undefined
        ? (plan) => {
            this.#plan = plan
          }
        : undefined
  }

  /** Whether spans are recorded at all (the hooks' spans follow the flush's). */
  get traced(): boolean {
    return !this.#observe.noSpans
  }

  /** `run()` with the flush's span as the active span (the driver's and the hooks' spans nest under it). */
  within<T>(run: () => Promise<T>): Promise<T> {
    return this.#span === undefined ? run() : inSpan(this.#span, run)
  }

  /** The flush committed (or had nothing to write): its report on the span and in the log. */
  succeeded(report: FlushReport): void {
    this.#span?.setAttributes({
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
    // The report copied only for a logger that takes it (a copy: the logger may keep or change it).
    if (this.#observe.logger?.info !== undefined)
      log(this.#observe.logger, 'info', { ...report }, 'pipeflush: flush done')
  }

  /**
   * The flush failed with `e`: on the span (which it ends) and in the log. The span says which flush
   * (`pipeflush.flush_id`, the error's: what `wasCommitted` takes) and what it planned to send
   * (`db.operation.batch.size`, `db.query.summary`), as far as it got; no report, so none of its
   * counts.
   */
  failed(e: unknown): void {
    const span = this.#span
    if (span !== undefined) {
      const flushId = (e as { flushId?: unknown } | null)?.flushId
      if (typeof flushId === 'string') span.setAttributes({ 'pipeflush.flush_id': flushId })
      const plan = this.#plan
      if (plan !== undefined)
        span.setAttributes({
          'db.operation.batch.size': statementCount(plan),
          'db.query.summary': planSummary(plan),
        })
    }
    failSpan(span, e)
    log(
      this.#observe.logger,
      'warn',
      { code: (e as { code?: unknown }).code, message: (e as Error).message },
      'pipeflush: flush failed',
    )
  }

  /** Ends the span of a flush that succeeded (a failed one ended with {@link failed}). */
  end(): void {
    this.#span?.end()
  }

  #planned(plan: FlushPlan): void {
    if (this.#span !== undefined) this.#plan = plan
    const statements = plan.waves.flat()
    if (this.#span !== undefined && this.#observe.statementTexts)
      this.#span.setAttributes({ 'db.query.text': statements.map((s) => s.sql).join(';\n') })
    log(
      this.#observe.logger,
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
}
