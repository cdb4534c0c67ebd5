import { fileURLToPath } from 'node:url'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { lastLine, runChild } from '../child-process.ts'
import type { SpanRecord } from './otel-child.ts'

const CHILD = fileURLToPath(new URL('./otel-child.ts', import.meta.url))
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe('create table traced (id bigserial primary key, label text not null)')
})

interface ChildOutput {
  readonly flushes: { mode: string; report: Record<string, unknown>; spans: SpanRecord[] }[]
  readonly reads: SpanRecord[]
  readonly failure: string
  readonly failed: SpanRecord[]
  readonly refused: { code: string; flushId: string; spans: SpanRecord[] }
  readonly pjReport: Record<string, unknown>
  readonly pjSpans: SpanRecord[]
  readonly logged: { level: string; fields: Record<string, unknown>; message: string }[]
}

/** The child run under Node's defaults, and the output it printed last. */
async function runTraced(): Promise<{ code: number | null; out: ChildOutput | undefined; stderr: string }> {
  const run = await runChild(CHILD, { url: db.url, table: 'traced' }, 55_000)
  return { code: run.code, out: lastLine<ChildOutput>(run), stderr: run.stderr }
}

describe('OpenTelemetry, with instrumentation-pg (node-postgres, pipeline: true)', () => {
  test('a CLIENT span per flush, as its report says, with pg’s spans inside it, in every mode, COPY included; a span per read batch; failures as errors', async () => {
    const { code, out, stderr } = await runTraced()
    expect({ code, stderr: stderr.slice(0, 2000) }).toEqual({ code: 0, stderr: '' })
    expect(out).toBeDefined()
    for (const { mode, report, spans } of out!.flushes) {
      const flush = spans.filter((s) => s.name === 'pipeflush flush')
      expect(flush, mode).toHaveLength(1)
      const span = flush[0]!
      expect(span.kind, mode).toBe(2) // CLIENT
      expect(span.attributes, mode).toMatchObject({
        'db.system.name': 'postgresql',
        'db.operation.name': 'BATCH',
        'db.operation.batch.size': report['statements'],
        'db.query.summary': report['summary'],
        'server.address': '127.0.0.1',
        'pipeflush.mode': report['mode'],
        'pipeflush.driver': 'pg',
        'pipeflush.round_trips': report['roundTrips'],
        'pipeflush.bytes_sent': report['bytesSent'],
        'pipeflush.rows.inserted': report['inserted'],
        'pipeflush.flush_id': report['flushId'],
      })
      expect(String(span.attributes['db.query.text']), mode).toMatch(/insert into|copy /)
      expect(String(span.attributes['db.query.text']), mode).not.toContain(`${mode.split(' ')[0]}-0`) // no values
      // pg's own spans are children of the flush span, in its trace.
      const pgSpans = spans.filter((s) => s.name !== 'pipeflush flush' && s.trace === span.trace)
      expect(pgSpans.length, mode).toBeGreaterThan(0)
      for (const s of pgSpans) expect(s.parent, `${mode}: ${s.name}`).toBe(span.id)
    }
    expect(out!.flushes.map((f) => f.report['summary'])).toEqual([
      'INSERT traced',
      'INSERT traced',
      'INSERT traced',
      'COPY traced',
    ])
    const read = out!.reads.filter((s) => s.name === 'pipeflush read')
    expect(read).toHaveLength(1) // two finds in one tick: one batch, one span
    expect(read[0]!.attributes).toMatchObject({
      'db.operation.name': 'BATCH SELECT',
      'db.operation.batch.size': 2,
      'db.query.summary': 'SELECT traced',
      'pipeflush.round_trips': 1,
    })
    expect(out!.failure).toBe('DUPLICATE_KEY')
    const failed = out!.failed.find((s) => s.name === 'pipeflush flush')
    expect(failed).toMatchObject({ status: 2, attributes: { 'error.type': 'DUPLICATE_KEY' } })
    // Refused by the server: the span names the flush (what wasCommitted takes) and what it sent.
    const { code: refusedCode, flushId, spans: refusedSpans } = out!.refused
    expect(refusedCode).toBe('CONSTRAINT_VIOLATION')
    expect(flushId).toMatch(/^[0-9a-f-]{36}$/)
    expect(refusedSpans.find((s) => s.name === 'pipeflush flush')).toMatchObject({
      status: 2,
      attributes: {
        'error.type': 'CONSTRAINT_VIOLATION',
        'pipeflush.flush_id': flushId,
        'db.operation.batch.size': 1,
        'db.query.summary': 'INSERT traced',
      },
    })

    // postgres.js: the same span, from the report.
    const pj = out!.pjSpans.find((s) => s.name === 'pipeflush flush')
    expect(pj?.attributes).toMatchObject({
      'pipeflush.driver': 'postgres.js',
      'pipeflush.round_trips': out!.pjReport['roundTrips'],
      'db.operation.batch.size': 1,
      'db.query.summary': 'INSERT traced',
    })
    expect(pj?.attributes['db.query.text']).toBeUndefined() // texts only when asked

    // The logger: the plan without values (debug), the report (info), a failure (warn).
    const levels = out!.logged.map((l) => `${l.level}: ${l.message}`)
    expect(levels).toEqual([
      'debug: pipeflush: flush planned',
      'info: pipeflush: flush done',
      'debug: pipeflush: flush planned',
      'warn: pipeflush: flush failed',
      'debug: pipeflush: flush planned',
      'warn: pipeflush: flush failed',
    ])
    expect(JSON.stringify(out!.logged)).not.toContain('secret-label-1')
    expect(out!.logged[1]!.fields).toMatchObject({ roundTrips: out!.pjReport['roundTrips'], inserted: 1 })
    expect(out!.logged[3]!.fields).toMatchObject({ code: 'CONSTRAINT_VIOLATION' })
  }, 60_000)
})
