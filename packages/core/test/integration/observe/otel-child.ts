// Run as its own Node process: OpenTelemetry's SDK with an in-memory exporter, the async-hooks context
// manager and instrumentation-pg (what OpenTelemetry's Node auto-instrumentation installs) are set up
// before pg is loaded, then one flush per mode (a COPY included) and a read batch go through a
// pg.Pool. Prints one JSON line: each flush's report and the spans of its trace.
import { createRequire } from 'node:module'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { registerInstrumentations } from '@opentelemetry/instrumentation'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'

export interface OtelChildConfig {
  readonly url: string
  readonly table: string
}

export interface SpanRecord {
  readonly name: string
  readonly id: string
  readonly parent: string | undefined
  readonly trace: string
  readonly kind: number
  readonly status: number
  readonly attributes: Record<string, unknown>
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as OtelChildConfig
const exporter = new InMemorySpanExporter()
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
trace.setGlobalTracerProvider(provider)
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
registerInstrumentations({ instrumentations: [new PgInstrumentation()] })

const require = createRequire(import.meta.url)
const pg = require('pg') as typeof import('pg')
const { EntityManager } = await import('@pipeflush/core')
const pool = new pg.Pool({ connectionString: cfg.url, max: 1, pipeline: true })
const root = await EntityManager.connect(pool, { copyRows: 5, tracing: { statements: true } })
const flushes: { mode: string; report: unknown; spans: SpanRecord[] }[] = []
const spans = (): SpanRecord[] =>
  exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    id: s.spanContext().spanId,
    parent: s.parentSpanContext?.spanId,
    trace: s.spanContext().traceId,
    kind: s.kind,
    status: s.status.code,
    attributes: { ...s.attributes },
  }))
for (const [mode, rows] of [
  ['off', 2],
  ['waves', 2],
  ['burst', 2],
  ['burst', 8], // COPY (copyRows 5)
] as const) {
  exporter.reset()
  const em = root.fork({ pipeline: mode })
  for (let i = 0; i < rows; i++) em.create(cfg.table, { label: `${mode}-${i}` })
  const report = await em.flush()
  flushes.push({ mode: rows > 5 ? `${mode} with COPY` : mode, report, spans: spans() })
}
exporter.reset()
const em = root.fork()
const [[stored]] = await Promise.all([
  em.find(cfg.table, { label: 'off-0' }),
  em.find(cfg.table, { label: 'burst-1' }),
])
const reads = spans()
exporter.reset()
const failing = root.fork()
failing.create(cfg.table, { id: 1, label: 'dup' })
failing.create(cfg.table, { id: 1, label: 'dup again' })
const failure = await failing.flush().catch((e: unknown) => (e as { code?: string }).code)
const failed = spans()
// Refused by the server (a key taken): sent, so planned, and a flush id on the error.
exporter.reset()
const refusing = root.fork()
refusing.create(cfg.table, { id: stored?.['id'], label: 'taken' })
const refusal = (await refusing.flush().then(
  () => undefined,
  (e: unknown) => e,
)) as { code?: string; flushId?: string } | undefined
const refused = { code: refusal?.code, flushId: refusal?.flushId, spans: spans() }
await pool.end()

// postgres.js (no instrumentation of its own): the same flush span; and a logger.
const postgres = (await import('postgres')).default
const sql = postgres(cfg.url, { max: 1, onnotice: () => {} })
const logged: { level: string; fields: Record<string, unknown>; message: string }[] = []
const logger = Object.fromEntries(
  ['debug', 'info', 'warn'].map((level) => [
    level,
    (fields: Record<string, unknown>, message: string) => logged.push({ level, fields, message }),
  ]),
)
const pjRoot = await EntityManager.connect(sql, { logger })
exporter.reset()
const pjEm = pjRoot.fork()
pjEm.create(cfg.table, { label: 'secret-label-1' })
const pjReport = await pjEm.flush()
const pjSpans = spans()
const dup = pjRoot.fork()
dup.create(cfg.table, { id: 1, label: 'x' })
await dup.flush().catch(() => {})
await dup.flush().catch(() => {})
await sql.end({ timeout: 1 })
process.stdout.write(
  `${JSON.stringify({ flushes, reads, failure, failed, refused, pjReport, pjSpans, logged })}\n`,
)
