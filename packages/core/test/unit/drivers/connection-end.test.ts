import { PassThrough } from 'node:stream'
import { describe, expect, it, vi } from 'vitest'
import type { DriverError, Session, SimpleResult } from '../../../src/drivers/driver.ts'
import { closedError, toDriverError } from '../../../src/drivers/driver-errors.ts'
import { Interrupted } from '../../../src/drivers/guarded-session.ts'
import type { PostgresJsConnection, PostgresJsQuery } from '../../../src/drivers/postgres-js/client-types.ts'
import { guardConnection, guardedConnectionOf } from '../../../src/drivers/postgres-js/connection-guard.ts'
import { SessionLifecycle } from '../../../src/drivers/session-lifecycle.ts'
import { Meters } from '../../../src/drivers/socket/meters.ts'
import { FlushSession } from '../../../src/flush/flush-session.ts'
import { interruptionError } from '../../../src/flush/outcome.ts'

/** Where postgres.js's server errors keep their fields (none is read here). */
const POSTGRES_FIELDS = {
  constraint: 'constraint_name',
  schema: 'schema_name',
  table: 'table_name',
  column: 'column_name',
}

/** A server message: type byte, length, body. */
function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5)
  head.write(type, 0)
  head.writeUInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

/** BackendKeyData with process id `pid` and secret `secret`, then ReadyForQuery. */
function keyAndReady(pid: number, secret: number): Buffer {
  const key = Buffer.alloc(8)
  key.writeUInt32BE(pid, 0)
  key.writeUInt32BE(secret, 4)
  return Buffer.concat([message('K', key), message('Z', Buffer.from('I'))])
}

const CONNECTION: DriverError = closedError('db:5432', 'reset')

describe('the socket meter', () => {
  it("ends at the socket's first 'error', before its 'close'", () => {
    const socket = new PassThrough()
    const m = new Meters().add(socket, 'db:5432')
    const seen: boolean[] = []
    m.meter.onClose(() => seen.push(m.meter.closed))
    socket.emit('error', new Error('read ECONNRESET'))
    expect(seen).toEqual([true])
    expect(m.meter.closeError?.message).toBe('read ECONNRESET')
    socket.emit('close')
    expect(seen).toEqual([true]) // once
  })

  it('finds a socket by its cancel key after it ended (its connection may be identified late)', () => {
    const meters = new Meters()
    const socket = new PassThrough()
    const m = meters.add(socket, 'db:5432')
    socket.write(Buffer.alloc(8))
    socket.emit('data', keyAndReady(42, 7))
    socket.emit('error', new Error('gone'))
    expect(meters.byKey('42:7')).toBe(m)
    expect(meters.byKey('42:7')?.meter.closed).toBe(true)
  })
})

describe('SessionLifecycle', () => {
  it('a connection error ends the session: it is then discarded, not given back', async () => {
    const release = vi.fn()
    const life = new SessionLifecycle(release)
    const failing = life.track(Promise.reject(new Error('x')), () => CONNECTION)
    await expect(failing).rejects.toBe(CONNECTION)
    expect(life.cause).toBe(CONNECTION)
    life.release()
    expect(release).toHaveBeenCalledWith(true)
  })

  it('a server error does not end the session: it is given back', async () => {
    const release = vi.fn()
    const life = new SessionLifecycle(release)
    const server: DriverError = { kind: 'server', message: 'duplicate key', sqlState: '23505', cause: null }
    await expect(life.track(Promise.reject(new Error('x')), () => server)).rejects.toBe(server)
    life.release()
    expect(release).toHaveBeenCalledWith(false)
  })

  it('tells its end listeners the cause once, in a microtask, in order; not one that stopped listening', async () => {
    const life = new SessionLifecycle(() => {})
    const heard: string[] = []
    life.onEnd((cause) => heard.push(`first: ${cause.message}`))
    const stop = life.onEnd(() => heard.push('stopped'))
    life.onEnd((cause) => heard.push(`third: ${cause.kind}`))
    stop()
    stop() // twice: nothing more
    life.end(CONNECTION)
    life.end({ ...CONNECTION, message: 'a later cause' }) // the first cause wins, told once
    expect(heard).toEqual([]) // not within end(): as a promise's reactions
    await Promise.resolve()
    expect(heard).toEqual([`first: ${CONNECTION.message}`, 'third: connection'])
    // A listener added after the end hears it in the next microtask, unless it stops first.
    life.onEnd((cause) => heard.push(`late: ${cause.message}`))
    life.onEnd(() => heard.push('late, stopped'))()
    await Promise.resolve()
    expect(heard.slice(2)).toEqual([`late: ${CONNECTION.message}`])
  })

  it('a server error given as the end is told as a connection error', async () => {
    const life = new SessionLifecycle(() => {})
    let told: DriverError | undefined
    life.onEnd((cause) => {
      told = cause
    })
    life.end({ kind: 'server', message: 'terminating connection', sqlState: '57P01', cause: null })
    await Promise.resolve()
    expect(told).toMatchObject({ kind: 'connection', message: 'terminating connection' })
    expect(life.cause).toBe(told)
  })

  it('an answer that arrives after the connection ended is refused', async () => {
    const life = new SessionLifecycle(() => {})
    let answer: (value: string) => void = () => {}
    const tracked = life.track(new Promise<string>((resolve) => (answer = resolve)), () => CONNECTION)
    life.end(CONNECTION)
    answer('the answer to whatever the connection was asked next')
    await expect(tracked).rejects.toBe(CONNECTION)
  })
})

describe('guardConnection (postgres.js)', () => {
  /** A connection whose execute records the queries it writes and sets their cancel key. */
  function connection() {
    const written: string[] = []
    const backend = { pid: 42, secret: 7 }
    const c = {
      terminate() {},
      execute: (q: PostgresJsQuery & { text: string }) => {
        ;(q as { state: unknown }).state = backend
        written.push(q.text)
        return true
      },
    } as unknown as PostgresJsConnection
    return { c, written, backend }
  }
  function query(text: string) {
    const q = { text, state: null, reject: vi.fn(), resolve: vi.fn() }
    return q as unknown as PostgresJsQuery & { text: string; reject: ReturnType<typeof vi.fn> }
  }

  it("writes while the connection's socket is open; refuses, writing nothing, once it ended", () => {
    const { c, written } = connection()
    let ended = false
    guardConnection(c, { ended: () => ended }, 'db:5432')
    expect(c.execute(query('select 1'))).toBe(true)
    ended = true
    const late = query('rollback')
    expect(c.execute(late)).toBe(true)
    expect(written).toEqual(['select 1'])
    expect(late.reject).toHaveBeenCalledWith(expect.objectContaining({ code: 'CONNECTION_CLOSED' }))
  })

  it('asks by the connection’s current cancel key, and lets unmetered sockets through', () => {
    const { c, written, backend } = connection()
    const asked: string[] = []
    guardConnection(
      c,
      {
        ended: (key) => {
          asked.push(key)
          return undefined
        },
      },
      'db:5432',
    )
    c.execute(query('a'))
    backend.pid = 43 // reconnected: postgres.js updates the key in place
    c.execute(query('b'))
    expect(asked).toEqual(['43:7'])
    expect(written).toEqual(['a', 'b'])
  })

  it('marks a refused query with the connection’s cancel key, by which its connection is found (postgres.js does not tell a reservation the connection of a query it did not write)', () => {
    const { c, backend } = connection()
    guardConnection(c, { ended: () => true }, 'db:5432', backend)
    const refused = query('select 1')
    expect(c.execute(refused)).toBe(true)
    expect(refused.reject).toHaveBeenCalledWith(expect.objectContaining({ code: 'CONNECTION_CLOSED' }))
    expect(refused.state).toBe(backend)
    expect(guardedConnectionOf(refused.state)).toBe(c)
  })

  it('guards the first query after it is set up when the cancel key is given', () => {
    const { c, written, backend } = connection()
    guardConnection(c, { ended: () => true }, 'db:5432', backend)
    c.execute(query('a'))
    expect(written).toEqual([])
  })

  // An application's type parser throwing in pipeflush's id fetch was CONNECTION_LOST with no cause,
  // "flush again to retry" (found by an outside probe): an exception of code the flush ran is no lost
  // connection.
  it('an exception of code the flush ran is INTERNAL_ERROR with it as cause; after the COMMIT went out, an unknown outcome', () => {
    const thrown = new RangeError('Invalid array length')
    const before = interruptionError(
      thrown,
      new FlushSession({} as Session, Number.POSITIVE_INFINITY),
      'f1',
      1000,
    )
    expect([before.code, before.cause]).toEqual(['INTERNAL_ERROR', thrown])
    expect(before.message).toMatch(/RangeError: Invalid array length.*Nothing was committed/)
    const fs = new FlushSession({} as Session, Number.POSITIVE_INFINITY)
    fs.commitSent = true
    const after = interruptionError(thrown, fs, 'f1', 1000)
    expect([after.code, after.cause]).toEqual(['COMMIT_OUTCOME_UNKNOWN', thrown])
  })

  // A flush refused so was COMMIT_OUTCOME_UNKNOWN ("the COMMIT was sent"), though nothing of it was
  // written (found by the fix of a stuck pool): the refusal says so, and the outcome rules read it.
  it('a refused query is unwritten: a flush whose COMMIT it held lost its connection, nothing committed', () => {
    const { c, backend } = connection()
    guardConnection(c, { ended: () => true }, 'db:5432', backend)
    const refused = query('insert ...; commit')
    c.execute(refused)
    const driverError = toDriverError(refused.reject.mock.calls[0]?.[0], POSTGRES_FIELDS, () => false)
    expect(driverError).toMatchObject({ kind: 'connection', code: 'CONNECTION_CLOSED', unwritten: true })
    const fs = new FlushSession({} as Session, Number.POSITIVE_INFINITY)
    fs.commitSent = true
    expect(interruptionError(driverError, fs, 'f1', 1000).code).toBe('CONNECTION_LOST')
    // A connection that ended after the message was written: the outcome is unknown, as before.
    expect(interruptionError({ ...driverError, unwritten: undefined }, fs, 'f1', 1000).code).toBe(
      'COMMIT_OUTCOME_UNKNOWN',
    )
    // The server ended the session for idling (a locking read's transaction waiting for its flush):
    // it ran nothing that arrived after (found by an outside probe: COMMIT_OUTCOME_UNKNOWN before).
    for (const sqlState of ['25P03', '57P05'])
      expect(
        interruptionError(
          { kind: 'connection', message: 'terminating', sqlState, cause: null },
          fs,
          'f1',
          1000,
        ).code,
      ).toBe('CONNECTION_LOST')
    const terminated = interruptionError(
      { kind: 'connection', message: 'terminating', sqlState: '57P01', cause: null },
      fs,
      'f1',
      1000,
    )
    // The server's SQLSTATE stays on the error (found by an outside probe: undefined before).
    expect([terminated.code, terminated.sqlState]).toEqual(['COMMIT_OUTCOME_UNKNOWN', '57P01'])
    expect(
      interruptionError(
        { kind: 'connection', message: 'terminating', sqlState: '57P01', cause: null },
        new FlushSession({} as Session, 0),
        'f1',
        1000,
      ).sqlState,
    ).toBe('57P01')
    // An error of the driver's own once the COMMIT went out refused nothing the server got (found by
    // an outside probe: STATEMENT_FAILED, "Nothing was committed", for a flush that had committed).
    const clientError = { kind: 'client' as const, message: 'out of range', cause: null }
    expect(interruptionError(clientError, fs, 'f1', 1000).code).toBe('COMMIT_OUTCOME_UNKNOWN')
    expect(interruptionError(clientError, new FlushSession({} as Session, 0), 'f1', 1000).code).toBe(
      'STATEMENT_FAILED',
    )
    // A driver reading past a message's bytes: the stream is not the server's, the connection lost.
    const garbled = Object.assign(new RangeError('The value of "offset" is out of range.'), {
      code: 'ERR_OUT_OF_RANGE',
    })
    expect(toDriverError(garbled, POSTGRES_FIELDS, () => false).kind).toBe('connection')
  })

  it('guards a connection once', () => {
    const { c } = connection()
    guardConnection(c, { ended: () => false }, 'db:5432')
    const once = c.execute
    guardConnection(c, { ended: () => false }, 'db:5432')
    expect(c.execute).toBe(once)
  })
})

describe('FlushSession.simple', () => {
  /** A session answering `result` to every message. */
  function session(result: SimpleResult) {
    const terminate = vi.fn()
    const s = {
      simple: () => Promise.resolve(result),
      roundTrips: () => 1,
      connectRoundTrips: () => 0,
      opened: false,
      onEnd: () => () => {},
      isEnded: () => false,
      terminate,
      release() {},
    } satisfies Session
    return { s, terminate }
  }

  it('an answer that cannot be the message’s ends the connection: no command tag, or other row sets', async () => {
    for (const [result, rowSets] of [
      [{ lastCommand: '', rowSets: [] }, undefined],
      [{ lastCommand: 'INSERT 0 1', rowSets: [[{ n: '1' }]] }, 2],
    ] as const) {
      const { s, terminate } = session(result)
      const fs = new FlushSession(s, Number.POSITIVE_INFINITY)
      const sent = fs.simple('insert ...; update ...', { commits: true, ...(rowSets ? { rowSets } : {}) })
      const error = await sent.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Interrupted)
      expect((error as Interrupted).driverError?.kind).toBe('connection')
      expect(terminate).toHaveBeenCalled()
    }
  })

  it('the answer the message expects goes through', async () => {
    const { s, terminate } = session({ lastCommand: 'SELECT 1', rowSets: [[{ n: '1' }]] })
    const fs = new FlushSession(s, Number.POSITIVE_INFINITY)
    await expect(fs.simple('select 1', { rowSets: 1 })).resolves.toMatchObject({ lastCommand: 'SELECT 1' })
    expect(terminate).not.toHaveBeenCalled()
  })
})
