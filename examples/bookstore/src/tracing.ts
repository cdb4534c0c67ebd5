import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace'

/**
 * OpenTelemetry for the example, as an application sets it up: a tracer provider (its spans kept in
 * memory, where a real application would export them), the AsyncLocalStorage context manager (so the
 * spans pipeflush makes nest under the request's), registered globally. pipeflush needs nothing
 * more: its spans appear once a provider records them.
 *
 * @example
 * const tracing = startTracing()
 * // ... requests ...
 * console.log(formatTrace(tracing.spans(), traceId))
 */
export function startTracing(): { spans(): readonly ReadableSpan[]; reset(): void } {
  const exporter = new InMemorySpanExporter()
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  )
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  return { spans: () => exporter.getFinishedSpans(), reset: () => exporter.reset() }
}

/**
 * Runs a request's handler in a SERVER span (`PATCH /authors/:id`), as HTTP instrumentation would:
 * the reads and the flush of its unit of work become its children. Without a provider, nothing is
 * recorded.
 */
export async function inRequestSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return trace.getTracer('bookstore').startActiveSpan(name, { kind: SpanKind.SERVER }, async (span: Span) => {
    try {
      return await fn()
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message })
      throw e
    } finally {
      span.end()
    }
  })
}

/**
 * Every trace of `spans` as an indented tree, one trace per request in the order they started, each
 * span with what pipeflush recorded:
 * ```
 * PATCH /authors/:id  49.0 ms
 *   pipeflush read  22.1 ms  1 round trip, SELECT author book review book_tag tag publisher
 *   pipeflush flush  23.4 ms  1 round trip, INSERT tag book_tag; UPDATE author book; DELETE ...
 * ```
 */
export function formatTraces(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((s) => s.spanContext().spanId))
  const children = new Map<string | undefined, ReadableSpan[]>()
  for (const s of spans) {
    const parent = s.parentSpanContext?.spanId
    const key = parent !== undefined && ids.has(parent) ? parent : undefined
    children.set(key, [...(children.get(key) ?? []), s])
  }
  const started = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1]
  const lines: string[] = []
  const walk = (parent: string | undefined, depth: number) => {
    for (const s of [...(children.get(parent) ?? [])].sort((a, b) => started(a) - started(b))) {
      const a = s.attributes
      const trips = a['pipeflush.round_trips']
      const what = [
        trips === undefined ? '' : `${trips} round trip${trips === 1 ? '' : 's'}`,
        String(a['db.query.summary'] ?? ''),
        s.status.code === SpanStatusCode.ERROR ? `ERROR ${String(a['error.type'] ?? '')}` : '',
      ].filter((x) => x !== '')
      const ms = (s.duration[0] * 1e3 + s.duration[1] / 1e6).toFixed(1)
      lines.push(`${'  '.repeat(depth)}${s.name}  ${ms} ms${what.length ? `  ${what.join(', ')}` : ''}`)
      walk(s.spanContext().spanId, depth + 1)
    }
  }
  walk(undefined, 0)
  return lines
}
