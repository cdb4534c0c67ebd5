/**
 * OpenTelemetry spans, through `@opentelemetry/api` when the application has it (an optional peer
 * dependency: pipeflush imports it once, at `connect`, and records nothing without it). Until the
 * application registers a tracer provider, pipeflush asks the API for no span at all; a provider's
 * span that does not record (sampled out) is ended at once, no attribute computed: tracing costs
 * next to nothing when off.
 */

/** The part of `@opentelemetry/api` pipeflush uses (declared here: the package is optional). */
interface OtelApi {
  readonly trace: {
    getTracerProvider(): OtelTracerProvider
    setSpan(context: unknown, span: TraceSpan): unknown
  }
  readonly context: { active(): unknown; with<T>(context: unknown, fn: () => T): T }
}

/**
 * The global tracer provider: the API's proxy, whose `getDelegateTracer` answers undefined while no
 * SDK registered a provider behind it.
 */
interface OtelTracerProvider {
  getTracer(name: string, version?: string): OtelTracer
  getDelegateTracer?(name: string, version?: string): OtelTracer | undefined
}

interface OtelTracer {
  startSpan(name: string, options: { kind: number; attributes?: Attributes }): TraceSpan
}

/** Span attributes: OpenTelemetry's primitive values. */
export type Attributes = Record<string, string | number | boolean | undefined>

/** A recording span (OpenTelemetry's `Span`, as far as pipeflush uses it). */
export interface TraceSpan {
  isRecording(): boolean
  setAttributes(attributes: Attributes): unknown
  setStatus(status: { code: number; message?: string }): unknown
  end(): void
}

/** OpenTelemetry's SpanKind values. */
const KIND = { internal: 0, client: 2 } as const
/** OpenTelemetry's SpanStatusCode.ERROR. */
const ERROR = 2
const TRACER = 'pipeflush'

let api: OtelApi | null | undefined
let loading: Promise<void> | undefined

/** Imports `@opentelemetry/api` once, if the application has it. Never rejects. */
export function loadTracing(): Promise<void> {
  loading ??= import('@opentelemetry/api').then(
    (m) => {
      api = ((m as { default?: unknown }).default ?? m) as OtelApi
    },
    () => {
      api = null
    },
  )
  return loading
}

/**
 * A span named `name`, or undefined when nothing records it (no OpenTelemetry, no provider, or
 * sampled out): `attributes` is called only for a recording span.
 *
 * A span nobody records costs nothing: its attributes are not even computed.
 */
export function startSpan(
  name: string,
  kind: keyof typeof KIND,
  attributes?: () => Attributes,
): TraceSpan | undefined {
  if (!api) return undefined
  const provider = api.trace.getTracerProvider()
  // No SDK behind the API's proxy: nothing would record the span, so none is made (the proxy would
  // make a tracer and a non-recording span at every flush and read).
  const tracer =
    provider.getDelegateTracer === undefined ? provider.getTracer(TRACER) : provider.getDelegateTracer(TRACER)
  if (tracer === undefined) return undefined
  const span = tracer.startSpan(name, { kind: KIND[kind] })
  if (!span.isRecording()) {
    span.end()
    return undefined
  }
  if (attributes) span.setAttributes(attributes())
  return span
}

/** Runs `fn` with `span` as the active span (the driver's own spans nest under it). */
export function inSpan<T>(span: TraceSpan | undefined, fn: () => T): T {
  if (span === undefined || !api) return fn()
  return api.context.with(api.trace.setSpan(api.context.active(), span), fn)
}

/** Ends `span` with what `error` was: `error.type` its code (or its name), status ERROR. */
export function failSpan(span: TraceSpan | undefined, error: unknown): void {
  if (span === undefined) return
  const code = (error as { code?: unknown } | null)?.code
  span.setAttributes({
    'error.type': typeof code === 'string' ? code : ((error as Error | null)?.name ?? 'Error'),
  })
  const message = (error as Error | null)?.message
  span.setStatus(message === undefined ? { code: ERROR } : { code: ERROR, message })
  span.end()
}

/**
 * `server.address` and `server.port` of a driver's address (`host:port`, several for multi-host
 * URLs: the first; a socket path as the address).
 */
export function serverAttributes(address: string): Attributes {
  const first = address.split(',')[0] ?? address
  const colon = first.lastIndexOf(':')
  if (colon <= 0 || first.startsWith('/')) return { 'server.address': first }
  const port = Number(first.slice(colon + 1))
  return {
    'server.address': first.slice(0, colon),
    ...(Number.isInteger(port) ? { 'server.port': port } : {}),
  }
}
