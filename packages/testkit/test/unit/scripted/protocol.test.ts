import { afterEach, describe, expect, test } from 'vitest'
import { type ScriptedServer, startScriptedServer } from '../../../src/index.ts'
import { brief, client, RawClient } from './raw-client.ts'

// The scripted peer answers as PostgreSQL does, byte for byte, to a client that speaks the protocol.

let server: ScriptedServer
const clients: RawClient[] = []

async function open(options: Parameters<typeof startScriptedServer>[0] = {}): Promise<RawClient> {
  server = await startScriptedServer({
    handlers: [
      {
        match: /^select \* from t$/,
        answer: {
          rows: [
            { a: '1', b: null },
            { a: 2, b: true },
          ],
        },
      },
      { match: /^insert into t\b/, answer: { tag: 'INSERT 0 1' } },
      {
        match: /^insert into bad\b/,
        answer: {
          error: {
            code: '23505',
            message: 'duplicate key',
            constraint: 't_pkey',
            table: 't',
            detail: 'Key (a)=(1)',
          },
        },
      },
      { match: /^copy t \(a, b\) from stdin$/, answer: (s) => ({ tag: `COPY ${s.copyData?.length}` }) },
    ],
    ...options,
  })
  const c = await RawClient.open(server.port)
  clients.push(c)
  return c
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.end()
  await server?.close()
})

describe('startup', () => {
  test('answers an SSLRequest with N, then the startup with AuthenticationOk, the parameters of PostgreSQL 18, a key, ReadyForQuery', async () => {
    server = await startScriptedServer()
    const c = await RawClient.open(server.port, false)
    clients.push(c)
    c.send(client.sslRequest())
    await c.during(20)
    c.send(client.startup({ user: 'app', database: 'db', client_encoding: 'UTF8', DateStyle: 'ISO, DMY' }))
    const answer = await c.untilReady()
    expect(answer.map((m) => m.type)).toEqual([
      'R',
      ...answer.filter((m) => m.type === 'S').map(() => 'S'),
      'K',
      'Z',
    ])
    const parameters = Object.fromEntries(
      answer.filter((m) => m.type === 'S').map((m) => m.text!.split('=') as [string, string]),
    )
    expect(parameters).toMatchObject({
      server_version: '18.4',
      server_encoding: 'UTF8',
      client_encoding: 'UTF8',
      DateStyle: 'ISO, DMY',
      integer_datetimes: 'on',
      standard_conforming_strings: 'on',
      TimeZone: 'UTC',
      in_hot_standby: 'off',
      session_authorization: 'app',
    })
    expect(answer.at(-1)?.text).toBe('I')
    expect(server.log.connection(1)?.startup).toEqual({
      user: 'app',
      database: 'db',
      client_encoding: 'UTF8',
      DateStyle: 'ISO, DMY',
    })
    expect(server.log.connection(1)?.messages.map((m) => m.type)).toEqual(['SSLRequest', 'StartupMessage'])
  })

  test('gives each connection its own process id', async () => {
    const a = await open()
    const b = await RawClient.open(server.port)
    clients.push(b)
    a.send(client.query('select pg_backend_pid()'))
    b.send(client.query('select pg_backend_pid()'))
    const [pa, pb] = await Promise.all([a.untilReady(), b.untilReady()])
    const pid = (answer: typeof pa) => answer.find((m) => m.type === 'D')!.body.toString('utf8', 6)
    expect(pid(pa)).toBe(String(server.log.connection(1)?.processId))
    expect(pid(pb)).toBe(String(server.log.connection(2)?.processId))
    expect(pid(pa)).not.toBe(pid(pb))
  })
})

describe('options and other messages', () => {
  test('`parameters` override those reported; `defaults: false` leaves only transaction control answered', async () => {
    server = await startScriptedServer({
      parameters: { server_version: '17.2', TimeZone: 'Europe/Paris' },
      defaults: false,
    })
    const c = await RawClient.open(server.port, false)
    clients.push(c)
    c.send(client.startup({ user: 'u' }))
    const startup = await c.untilReady()
    expect(startup.filter((m) => m.type === 'S').map((m) => m.text)).toEqual(
      expect.arrayContaining(['server_version=17.2', 'TimeZone=Europe/Paris']),
    )
    c.send(client.query('begin; select 1'))
    expect(brief(await c.untilReady())).toEqual(['C BEGIN', 'E XX000', 'Z E'])
  })

  test('a CancelRequest is logged and its connection closed', async () => {
    await open()
    const cancel = await RawClient.open(server.port, false)
    clients.push(cancel)
    const body = Buffer.alloc(16)
    body.writeUInt32BE(16, 0)
    body.writeUInt32BE(80877102, 4)
    body.writeUInt32BE(40001, 8)
    body.writeUInt32BE(7, 12)
    cancel.send(body)
    expect(await cancel.closed).toBe('closed')
    expect(server.log.cancels).toEqual([{ processId: 40001, secret: 7 }])
  })
})

describe('simple protocol', () => {
  test('one answer per statement of a message, then ReadyForQuery; the statements run as one implicit transaction', async () => {
    const c = await open()
    c.send(client.query("select * from t; insert into t values ('a;b'); insert into t values (2)"))
    expect(brief(await c.untilReady())).toEqual([
      'T',
      'D',
      'D',
      'C SELECT 2',
      'C INSERT 0 1',
      'C INSERT 0 1',
      'Z I',
    ])
    expect(server.log.connection(1)?.transactions).toEqual([
      {
        connection: 1,
        explicit: false,
        statements: ['select * from t', "insert into t values ('a;b')", 'insert into t values (2)'],
        outcome: 'committed',
      },
    ])
  })

  test('stops at an error, the rest of the message skipped, the implicit transaction rolled back', async () => {
    const c = await open()
    c.send(client.query('insert into t values (1); insert into bad values (1); insert into t values (2)'))
    const answer = await c.untilReady()
    expect(brief(answer)).toEqual(['C INSERT 0 1', 'E 23505', 'Z I'])
    expect(answer[1]?.fields).toMatchObject({
      S: 'ERROR',
      n: 't_pkey',
      t: 't',
      D: 'Key (a)=(1)',
      M: 'duplicate key',
    })
    expect(server.log.connection(1)?.transactions.map((t) => t.outcome)).toEqual(['rolled back'])
    expect(server.log.executed.map((e) => e.result)).toEqual(['INSERT 0 1', 'ERROR 23505'])
  })

  test('a block: T, E after an error, 25P02 until its end, COMMIT of a failed block answered ROLLBACK', async () => {
    const c = await open()
    c.send(client.query('begin'))
    expect(brief(await c.untilReady())).toEqual(['C BEGIN', 'Z T'])
    c.send(client.query('insert into bad values (1)'))
    expect(brief(await c.untilReady())).toEqual(['E 23505', 'Z E'])
    c.send(client.query('insert into t values (1)'))
    expect(brief(await c.untilReady())).toEqual(['E 25P02', 'Z E'])
    c.send(client.query('commit'))
    expect(brief(await c.untilReady())).toEqual(['C ROLLBACK', 'Z I'])
    c.send(client.query('commit'))
    expect(brief(await c.untilReady())).toEqual(['N 25P01', 'C COMMIT', 'Z I'])
    expect(server.log.connection(1)?.transactions.map((t) => [t.explicit, t.outcome])).toEqual([
      [true, 'rolled back'],
    ])
  })

  test('an empty query, and a statement no handler answers (XX000, logged)', async () => {
    const c = await open()
    c.send(client.query(' -- nothing\n'))
    expect(brief(await c.untilReady())).toEqual(['I', 'Z I'])
    c.send(client.query('vacuum'))
    expect(brief(await c.untilReady())).toEqual(['E XX000', 'Z I'])
    expect(server.log.unanswered).toEqual(['vacuum'])
  })

  test('the defaults: SET, SHOW, select <n>, pg_backend_pid, the connection’s settings', async () => {
    const c = await open()
    c.send(client.query("set x = 1; show DateStyle; select 7; select current_setting('server_version_num')"))
    const answer = await c.untilReady()
    expect(brief(answer)).toEqual([
      'C SET',
      'T',
      'D',
      'C SELECT 1',
      'T',
      'D',
      'C SELECT 1',
      'T',
      'D',
      'C SELECT 1',
      'Z I',
    ])
    expect(answer.filter((m) => m.type === 'D').map((m) => m.body.toString('utf8', 6))).toEqual([
      'ISO, MDY',
      '7',
      '180004',
    ])
  })
})

describe('extended protocol', () => {
  test('answers Parse, Bind, Describe, Execute, written at Sync; a named statement is reused', async () => {
    const c = await open()
    c.send(
      client.parse('s1', 'select * from t'),
      client.bind('', 's1'),
      client.describe('P', ''),
      client.execute(''),
      client.sync(),
      client.bind('', 's1'),
      client.execute(''),
      client.sync(),
    )
    expect(brief(await c.untilReady(2))).toEqual([
      '1',
      '2',
      'T',
      'D',
      'D',
      'C SELECT 2',
      'Z I',
      '2',
      'D',
      'D',
      'C SELECT 2',
      'Z I',
    ])
    // Each Sync's answer is one write of the server, as PostgreSQL flushes at ReadyForQuery.
    expect(server.log.connection(1)?.bytesSent).toBeGreaterThan(0)
    c.send(client.parse('s1', 'select * from t'), client.sync())
    expect(brief(await c.untilReady())).toEqual(['E 42P05', 'Z I'])
  })

  test('after an error, messages are skipped until Sync; in a block it is then failed', async () => {
    const c = await open()
    c.send(client.query('begin'))
    await c.untilReady()
    c.send(
      client.parse('', 'insert into bad values ($1)'),
      client.bind('', '', ['1']),
      client.execute(''),
      client.parse('', 'insert into t values ($1)'),
      client.bind('', '', ['2']),
      client.execute(''),
      client.sync(),
      client.parse('', 'insert into t values ($1)'),
      client.bind('', '', ['3']),
      client.execute(''),
      client.sync(),
      client.query('rollback'),
    )
    expect(brief(await c.untilReady(3))).toEqual([
      '1',
      '2',
      'E 23505',
      'Z E',
      'E 25P02',
      'Z E',
      'C ROLLBACK',
      'Z I',
    ])
    expect(server.log.executed.map((e) => [e.text, e.params, e.result])).toEqual([
      ['begin', [], 'BEGIN'],
      ['insert into bad values ($1)', ['1'], 'ERROR 23505'],
      ['rollback', [], 'ROLLBACK'],
    ])
  })

  test("a statement's description, and an Execute with a row limit (PortalSuspended)", async () => {
    const c = await open()
    c.send(
      client.parse('q', 'select * from t'),
      client.describe('S', 'q'),
      client.bind('p', 'q'),
      client.execute('p', 1),
      client.execute('p', 1),
      client.sync(),
    )
    expect(brief(await c.untilReady())).toEqual(['1', 't', 'T', '2', 'D', 's', 'D', 'C SELECT 2', 'Z I'])
  })

  test('outside a block, the statements up to Sync are one implicit transaction', async () => {
    const c = await open()
    c.send(
      client.parse('', 'insert into t values (1)'),
      client.bind('', ''),
      client.execute(''),
      client.parse('', 'insert into t values (2)'),
      client.bind('', ''),
      client.execute(''),
      client.sync(),
    )
    expect(brief(await c.untilReady())).toEqual(['1', '2', 'C INSERT 0 1', '1', '2', 'C INSERT 0 1', 'Z I'])
    expect(server.log.committed()).toEqual(['insert into t values (1)', 'insert into t values (2)'])
  })
})

describe('COPY FROM STDIN', () => {
  test('CopyInResponse, the data, CopyDone: the handler sees the data; CopyFail fails it', async () => {
    const c = await open()
    c.send(client.query('copy t (a, b) from stdin; insert into t values (1)'))
    expect(brief(await c.during(30))).toEqual(['G'])
    c.send(client.copyData('1\tx\n'), client.copyData('2\ty\n'), client.copyDone())
    expect(brief(await c.untilReady())).toEqual(['C COPY 8', 'C INSERT 0 1', 'Z I'])
    c.send(client.query('copy t (a, b) from stdin'), client.copyData('1\tx\n'), client.copyFail('stop'))
    expect(brief(await c.untilReady())).toEqual(['G', 'E 57014', 'Z I'])
  })

  test('data behind a message whose earlier statement failed is ignored, as PostgreSQL does', async () => {
    const c = await open()
    c.send(
      client.query('insert into bad values (1); copy t (a, b) from stdin'),
      client.copyData('1\tx\n'),
      client.copyDone(),
      client.query('select 1'),
    )
    expect(brief(await c.untilReady(2))).toEqual(['E 23505', 'Z I', 'T', 'D', 'C SELECT 1', 'Z I'])
  })
})

describe('handlers', () => {
  test('`times` lets later handlers answer; handlers added later come first; one that throws is answered XX000; FATAL ends the connection', async () => {
    const c = await open()
    server.handle(
      { match: 'insert into t values (9)', answer: { error: { code: '40001', message: 'retry' } }, times: 1 },
      { match: 'select 5', answer: { error: { code: '57P01', message: 'terminating', severity: 'FATAL' } } },
    )
    c.send(client.query('insert into t values (9)'))
    expect(brief(await c.untilReady())).toEqual(['E 40001', 'Z I'])
    c.send(client.query('insert into t values (9)'))
    expect(brief(await c.untilReady())).toEqual(['C INSERT 0 1', 'Z I'])
    server.handle({
      match: 'select 6',
      answer: () => {
        throw new Error('a bug in the test')
      },
    })
    c.send(client.query('select 6'))
    expect(brief(await c.untilReady())).toEqual(['E XX000', 'Z I'])
    expect(server.log.failures).toEqual([new Error('a bug in the test')])
    c.send(client.query('select 5'))
    expect(brief(await c.untilClosed())).toEqual(['E 57P01'])
    expect(server.log.connection(1)?.ended).toBe('by the server')
  })
})

describe('error positions', () => {
  test('a position given for a statement is reported in the whole text of the Query, in characters', async () => {
    const c = await open({
      handlers: [
        { match: /^select 'ü', x$/, answer: { error: { code: '42703', message: 'no x', position: 13 } } },
      ],
    })
    c.send(client.query("select 1;\n  select 'ü', x"))
    const answer = await c.untilReady()
    expect(answer.find((m) => m.type === 'E')?.fields?.['P']).toBe(String(12 + 13))
  })
})
