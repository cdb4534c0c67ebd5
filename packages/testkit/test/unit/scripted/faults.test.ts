import { afterEach, describe, expect, test } from 'vitest'
import { type ScriptedFault, type ScriptedServer, startScriptedServer } from '../../../src/index.ts'
import { brief, client, RawClient } from './raw-client.ts'

// Faults the scripted peer injects at a chosen message, and the log of what each connection sent.

let server: ScriptedServer
const clients: RawClient[] = []

async function open(fault?: ScriptedFault): Promise<RawClient> {
  server = await startScriptedServer({
    handlers: [{ match: /^insert into t\b/, answer: { tag: 'INSERT 0 1' } }],
  })
  const c = await RawClient.open(server.port)
  clients.push(c)
  server.log.reset()
  if (fault !== undefined) server.arm(fault)
  return c
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.end()
  await server?.close()
})

const transaction = () => [
  client.query('begin'),
  client.query('insert into t values (1)'),
  client.query('insert into t values (2)'),
  client.query('commit'),
]

describe('faults', () => {
  test('close before the n-th message since armed: the answers before it were written, nothing after', async () => {
    const c = await open({ at: { message: 3 }, action: 'close' })
    c.send(...transaction())
    expect(brief(await c.untilClosed())).toEqual(['C BEGIN', 'Z T', 'C INSERT 0 1', 'Z T'])
    expect(await c.closed).toBe('closed')
    const log = server.log.connection(1)!
    expect(log.ended).toBe('by the server')
    expect(log.transactions.map((t) => [t.statements, t.outcome])).toEqual([
      [['insert into t values (1)'], 'lost'],
    ])
    // Messages are logged as read: the one the fault hit, not those after it.
    expect(log.messages.map((m) => m.text)).toEqual([
      'begin',
      'insert into t values (1)',
      'insert into t values (2)',
    ])
  })

  test('reset: the client sees its connection reset', async () => {
    const c = await open({ at: { message: 1 }, action: 'reset' })
    c.send(client.query('select 1'))
    expect(await c.closed).toBe('ECONNRESET')
    expect(server.log.connection(1)?.ended).toBe('by a reset')
  })

  test('the COMMIT, before its answer: committed on the server, the answer lost', async () => {
    const c = await open({ at: 'commit', action: 'close' })
    c.send(...transaction())
    expect(brief(await c.untilClosed())).toEqual([
      'C BEGIN',
      'Z T',
      'C INSERT 0 1',
      'Z T',
      'C INSERT 0 1',
      'Z T',
    ])
    expect(server.log.committed()).toEqual(['insert into t values (1)', 'insert into t values (2)'])
  })

  test('the COMMIT, before handling it: nothing committed', async () => {
    const c = await open({ at: 'commit', when: 'before', action: 'close' })
    c.send(...transaction())
    await c.untilClosed()
    expect(server.log.committed()).toEqual([])
    expect(server.log.connection(1)?.transactions.map((t) => t.outcome)).toEqual(['lost'])
  })

  test('the COMMIT, after its answer: committed and answered, then closed', async () => {
    const c = await open({ at: 'commit', when: 'after-answer', action: 'close' })
    c.send(...transaction())
    expect(brief(await c.untilClosed()).slice(-2)).toEqual(['C COMMIT', 'Z I'])
    expect(server.log.committed()).toHaveLength(2)
  })

  test("'commit' is the implicit commit of a message of writes too, not a message of reads", async () => {
    const c = await open({ at: 'commit', action: 'hang' })
    c.send(client.query('select 1; select 2'))
    expect(brief(await c.untilReady())).toEqual(['T', 'D', 'C SELECT 1', 'T', 'D', 'C SELECT 1', 'Z I'])
    c.send(client.query('insert into t values (1); insert into t values (2)'))
    expect(await c.during(50)).toEqual([])
    // It ran; the hang kept its answer.
    expect(server.log.committed()).toEqual([
      'select 1',
      'select 2',
      'insert into t values (1)',
      'insert into t values (2)',
    ])
  })

  test('hang: no answer, later messages logged, the connection left open', async () => {
    const c = await open({ at: { statement: /^insert/ }, action: 'hang' })
    c.send(client.query('begin'), client.query('insert into t values (1)'), client.query('select 1'))
    expect(brief(await c.during(60))).toEqual(['C BEGIN', 'Z T'])
    expect(server.log.connection(1)?.messages.map((m) => m.text)).toEqual([
      'begin',
      'insert into t values (1)',
      'select 1',
    ])
    expect(server.log.connection(1)?.ended).toBe('no')
  })

  test('delay: the answer comes that much later', async () => {
    const c = await open({ at: { message: 1 }, action: { delayMs: 80 } })
    const started = performance.now()
    c.send(client.query('select 1'))
    await c.untilReady()
    expect(performance.now() - started).toBeGreaterThanOrEqual(75)
  })

  test('partial: the first n bytes of the answer, then the connection ends', async () => {
    const c = await open({ at: { message: 1 }, action: { partial: 8 } })
    c.send(client.query('insert into t values (1)'))
    expect(await c.untilClosed()).toEqual([])
    expect(server.log.connection(1)?.bytesSent).toBe(8)
  })

  test('at a byte offset: the messages before it are answered, the rest never read', async () => {
    const c = await open()
    const messages = transaction()
    server.arm({ at: { byte: messages[0]!.length + messages[1]!.length + 3 }, action: 'close' })
    c.send(...messages)
    expect(brief(await c.untilClosed())).toEqual(['C BEGIN', 'Z T', 'C INSERT 0 1', 'Z T'])
    expect(server.log.connection(1)?.messages.map((m) => m.text)).toEqual([
      'begin',
      'insert into t values (1)',
    ])
  })

  test('only on the chosen connection, once by default; disarm()', async () => {
    const a = await open()
    const b = await RawClient.open(server.port)
    clients.push(b)
    server.arm({ at: { message: 1 }, action: 'close', connection: 2 })
    a.send(client.query('select 1'))
    expect(brief(await a.untilReady()).at(-1)).toBe('Z I')
    b.send(client.query('select 1'))
    expect(await b.untilClosed()).toEqual([])
    const c = await RawClient.open(server.port)
    clients.push(c)
    server.arm({ at: { message: 1 }, action: 'close' })
    server.disarm()
    c.send(client.query('select 1'))
    expect(brief(await c.untilReady()).at(-1)).toBe('Z I')
  })
})

describe('the log', () => {
  test('counts the client’s writes and round trips as the server sees them', async () => {
    const c = await open()
    c.send(client.query('begin'), client.query('insert into t values (1)'))
    await c.untilReady(2)
    c.send(client.query('commit'))
    await c.untilReady()
    const log = server.log.connection(1)!
    expect(log.writes).toBe(2)
    expect(log.roundTrips).toBe(2)
    expect(log.messages.map((m) => [m.text, m.roundTrip, m.write])).toEqual([
      ['begin', 1, 1],
      ['insert into t values (1)', 1, 1],
      ['commit', 2, 2],
    ])
    expect(server.log.committedTransactions).toEqual([
      { connection: 1, explicit: true, statements: ['insert into t values (1)'], outcome: 'committed' },
    ])
    // Each ReadyForQuery is a write of the server's, as PostgreSQL flushes there.
    expect(c.chunks).toBeGreaterThanOrEqual(3)
  })
})
