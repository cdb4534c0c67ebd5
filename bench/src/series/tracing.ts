// The OpenTelemetry setup of the traced CPU series: what an application with tracing on installs (a
// tracer provider set globally, recording every span into memory, and an AsyncLocalStorage context
// manager), as scripts/tracing-cost/measure.ts does. The packages are the ones @pipeflush/core tests
// its spans with (its devDependencies, hoisted to the repository's node_modules); without them the
// traced series cannot run and say so.

type Api = typeof import('@opentelemetry/api')
type Hooks = typeof import('@opentelemetry/context-async-hooks')
type Sdk = typeof import('@opentelemetry/sdk-trace')

/** A recording tracer provider that a series sets globally for its turn only. */
export interface RecordingTracer {
  /** Sets the provider and an AsyncLocalStorage context manager globally. Throws when another is set. */
  install(): void
  /**
   * Unsets both (`trace.disable()`, `context.disable()`: spans started later are non-recording, as
   * without a provider) and empties the exporter; returns the spans it recorded since `install`.
   */
  uninstall(): number
}

let modules: Promise<[Api, Hooks, Sdk]> | undefined

function load(): Promise<[Api, Hooks, Sdk]> {
  modules ??= Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/sdk-trace'),
  ])
  return modules
}

/** Why the traced series cannot run here (the OpenTelemetry packages are missing), or undefined. */
export async function tracingUnavailable(): Promise<string | undefined> {
  try {
    await load()
    return undefined
  } catch (e) {
    const message = e instanceof Error ? e.message.split('\n')[0] : String(e)
    return `cannot run: @opentelemetry/api, context-async-hooks or sdk-trace not installed (${message})`
  }
}

let shared: Promise<RecordingTracer> | undefined

/**
 * The process's recording tracer (one provider with a `SimpleSpanProcessor` into an
 * `InMemorySpanExporter`, shared by every traced series: they take turns).
 *
 * @example
 * const tracer = await recordingTracer()
 * tracer.install()
 * await em.flush()
 * const spans = tracer.uninstall() // 2 or more: the flush's span and its statements'
 */
export function recordingTracer(): Promise<RecordingTracer> {
  shared ??= load().then(([{ context, trace }, { AsyncLocalStorageContextManager }, sdk]) => {
    const exporter = new sdk.InMemorySpanExporter()
    const provider = new sdk.TracerProvider({
      spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })],
    })
    return {
      install() {
        if (!trace.setGlobalTracerProvider(provider))
          throw new Error('another OpenTelemetry tracer provider is set globally')
        context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
      },
      uninstall() {
        const spans = exporter.getFinishedSpans().length
        exporter.reset()
        trace.disable()
        context.disable()
        return spans
      },
    }
  })
  return shared
}
