import { type TracerProvider, trace } from '@opentelemetry/api'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadTracing, startSpan } from '../../../src/observe/tracing.ts'

/** A tracer provider that records what is asked of it: spans started (`tracer:span:kind`), attributes, spans ended. */
function recordingProvider(recording: boolean) {
  const started: string[] = []
  const attributes: unknown[] = []
  const ended: string[] = []
  const provider = {
    getTracer: (tracer: string) => ({
      startSpan: (name: string, options: { kind: number }) => {
        started.push(`${tracer}:${name}:${options.kind}`)
        return {
          isRecording: () => recording,
          setAttributes: (a: unknown) => attributes.push(a),
          setStatus: () => {},
          end: () => ended.push(name),
        }
      },
    }),
  } as unknown as TracerProvider
  return { provider, started, attributes, ended }
}

const NOT_COMPUTED = () => {
  throw new Error('the attributes of a span nobody records are not computed')
}

describe('startSpan', () => {
  beforeAll(async () => {
    await loadTracing()
  })
  afterEach(() => {
    trace.disable()
  })

  it('asks the API for no tracer and no span while no provider is registered', () => {
    trace.disable()
    const proxy = trace.getTracerProvider()
    const getTracer = proxy.getTracer
    let asked = 0
    proxy.getTracer = (...args: Parameters<typeof getTracer>) => {
      asked++
      return getTracer.apply(proxy, args)
    }
    try {
      expect(startSpan('pipeflush flush', 'client', NOT_COMPUTED)).toBeUndefined()
      expect(startSpan('pipeflush read', 'client')).toBeUndefined()
      expect(asked).toBe(0)
    } finally {
      proxy.getTracer = getTracer
    }
  })

  it("gives the registered provider's recording span, its attributes computed once", () => {
    const p = recordingProvider(true)
    expect(trace.setGlobalTracerProvider(p.provider)).toBe(true)
    const span = startSpan('pipeflush flush', 'client', () => ({ 'pipeflush.mode': 'burst' }))
    expect(span).toBeDefined()
    expect(p.started).toEqual(['pipeflush:pipeflush flush:2'])
    expect(p.attributes).toEqual([{ 'pipeflush.mode': 'burst' }])
    span!.end()
    expect(p.ended).toEqual(['pipeflush flush'])
  })

  it('ends a span its provider does not record at once, its attributes not computed', () => {
    const p = recordingProvider(false)
    trace.setGlobalTracerProvider(p.provider)
    expect(startSpan('pipeflush read', 'internal', NOT_COMPUTED)).toBeUndefined()
    expect(p.started).toEqual(['pipeflush:pipeflush read:0'])
    expect(p.ended).toEqual(['pipeflush read'])
  })

  it('follows the provider registered last, none in between', () => {
    const first = recordingProvider(true)
    trace.setGlobalTracerProvider(first.provider)
    startSpan('one', 'client')?.end()
    trace.disable()
    expect(startSpan('none', 'client', NOT_COMPUTED)).toBeUndefined()
    const second = recordingProvider(true)
    trace.setGlobalTracerProvider(second.provider)
    startSpan('two', 'client')?.end()
    expect(first.started).toEqual(['pipeflush:one:2'])
    expect(second.started).toEqual(['pipeflush:two:2'])
  })
})
