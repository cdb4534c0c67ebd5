import { appKysely, FlushMeter } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { startServer } from '../src/api/server.ts'
import { outboxHooks } from '../src/outbox.ts'
import { createSchema, type DB, resetData } from '../src/schema.ts'
import { runScript } from '../src/script.ts'
import { formatTraces, startTracing } from '../src/tracing.ts'

// The example's tracing (`--trace`), read from the in-memory exporter: each write request is a span
// with two children, a read of one round trip and a flush of one; a POST, which reads nothing (its
// tags and publishers are got or created by its flush), has the flush only.
const db = useTestDatabase()
const tracing = startTracing()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
})

describe.each(TEST_DRIVERS)('%s: a request’s spans', (driver) => {
  test('each write request: one read span (none for a POST) and one flush span, one round trip each, under the request span', async () => {
    await resetData((text) => db.sql.unsafe(text))
    const app = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({
      client: app.client,
      db: appKysely<DB>(app),
      hooks: outboxHooks,
    })
    const server = await startServer(new FlushMeter(factory, app.counter, () => {}))
    try {
      tracing.reset()
      await runScript(server.url, app.counter)
    } finally {
      await server.close()
    }
    const spans = tracing.spans()
    const requests = spans.filter((s) => /^(POST|PATCH|DELETE) /.test(s.name))
    expect(requests.map((r) => r.name)).toEqual([
      'POST /authors',
      'POST /authors',
      'PATCH /authors/:id',
      'DELETE /authors/:id',
      'POST /authors',
    ])
    for (const request of requests) {
      const children = spans.filter((s) => s.parentSpanContext?.spanId === request.spanContext().spanId)
      const expected = request.name.startsWith('POST')
        ? ['pipeflush flush']
        : ['pipeflush flush', 'pipeflush read']
      expect(children.map((c) => c.name).sort(), request.name).toEqual(expected)
      for (const child of children) expect(child.attributes['pipeflush.round_trips'], request.name).toBe(1)
    }
    expect(formatTraces(spans).join('\n')).toMatch(
      /PATCH \/authors\/:id .*\n {2}pipeflush read .* 1 round trip, SELECT author book/,
    )
  })
})
