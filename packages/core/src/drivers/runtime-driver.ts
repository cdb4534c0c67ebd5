import { type AdapterConnection, type DriverAdapter, GiveUp } from './adapter.ts'
import { setAlarm } from './deadline-alarm.ts'
import type { Driver, DriverError, Param, ReserveOptions, Row, Session } from './driver.ts'
import { deadlineError, isDriverError } from './driver-errors.ts'
import { GuardedSession, Interrupted } from './guarded-session.ts'
import { inlineParams } from './inline-params.ts'
import { RuntimeSession } from './runtime-session.ts'
import { Meters } from './socket/meters.ts'

/** Node's message for a TLS handshake whose connection closed before it ended. */
const TLS_CUT = /before secure TLS connection was established/
/**
 * The {@link Driver} pipeflush uses, over a driver's adapter: what every driver shares is done here,
 * once. It puts a round-trip meter on every connection the client opens (`socket/meters.ts`), bounds
 * a reservation by its deadline (a connection answered later goes back to the pool at once), names
 * the address in connection errors, detects a pooler, and makes each connection a
 * {@link RuntimeSession} (its lifecycle, its round trips, the openings it claims). The adapter only
 * sends (see `adapter.ts`).
 */
export class RuntimeDriver implements Driver {
  readonly meters: Meters
  readonly #adapter: DriverAdapter
  #pooler: Promise<boolean> | undefined
  /** Reservations waiting for a connection (see {@link #endStalledOpenings}). */
  #waiting = 0
  /**
   * Reservations given up whose openings are still to be looked at: the openings of one given up
   * while others waited may serve those, and are looked at once none waits.
   */
  readonly #gaveUp: GaveUpReservation[] = []

  constructor(adapter: DriverAdapter) {
    this.#adapter = adapter
    this.meters = new Meters({ countCompleted: !adapter.countsCompleted })
    adapter.meterSockets((socket, address, afterReady, admit) =>
      this.meters.add(socket, address, true, afterReady, admit),
    )
  }

  get name(): 'postgres.js' | 'pg' {
    return this.#adapter.name
  }

  get address(): string {
    return this.#adapter.address
  }

  get database(): string | undefined {
    return this.#adapter.database
  }

  get pipelines(): boolean {
    return this.#adapter.pipelines
  }

  get copies(): boolean {
    return this.#adapter.copies
  }

  /**
   * One autocommit query (its parameters inlined as literals: one simple-protocol message) on a
   * connection reserved for it as a flush's is: a client that cannot connect fails as a flush does,
   * after the driver's connect timeout at the latest, naming the address (postgres.js's own queue
   * reconnected forever to a server that closed every connection as it opened).
   */
  async query(
    text: string,
    params: readonly Param[] = [],
    timeoutMs = Number.POSITIVE_INFINITY,
  ): Promise<readonly Row[]> {
    const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
    // A session: the connection watched while held (pg emits a lost connection as an 'error' event,
    // which nobody else listens to while it is checked out), and discarded if it ended.
    const session = await this.reserve({ deadline })
    try {
      const message = params.length === 0 ? text : inlineParams(text, params)
      // Bounded: the connection terminated at the deadline (a server that accepted it and never answers).
      const { rowSets } = await (Number.isFinite(deadline)
        ? new GuardedSession(session, deadline).simple(message)
        : session.simple(message))
      return rowSets[rowSets.length - 1] ?? []
    } catch (e) {
      if (e instanceof Interrupted)
        throw e.reason === 'timeout' ? noAnswerError(this.address, timeoutMs) : (e.driverError ?? e)
      const error = this.toDriverError(e)
      if (error.kind !== 'connection' || error.message.includes(this.address)) throw error
      throw { ...error, message: `the connection to ${this.address} failed: ${error.message}` }
    } finally {
      session.release()
    }
  }

  reserve(options: ReserveOptions): Promise<Session> {
    const started = performance.now()
    return this.#acquire(
      options.deadline,
      (connection) => new RuntimeSession(this.#adapter, connection, this.meters, started),
      options.admitted,
    )
  }

  admit(): (() => void) | DriverError {
    return this.#adapter.admit()
  }

  /**
   * Whether a pooler sits between the client and the server: the process id the client got when its
   * connection opened is not `pg_backend_pid()`. One query on a connection of the pool, cached.
   */
  detectPooler(timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    if (!this.#pooler) {
      const p = (async () => {
        const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
        const connection = await this.#acquire(deadline, (c) => c)
        let healthy = false
        // Watched while held: pg emits a lost connection as an 'error' event, thrown with no listener.
        const unwatch = connection.watchEnd(() => {})
        try {
          const { rowSets } = await withinDeadline(
            // As text: an application's type parser for int4 (pg's `types.setTypeParser`) does not apply.
            connection.simple('select pg_backend_pid()::text as pid'),
            deadline,
            () => noAnswerError(this.address, timeoutMs),
          )
          healthy = true
          const pid = Number(rowSets[0]?.[0]?.['pid'])
          const key = connection.processId()
          return key !== undefined && pid !== key
        } catch (e) {
          // The driver's own error (a connection cut under the query) is coded as every query's is.
          throw isDriverError(e) ? e : this.toDriverError(e)
        } finally {
          unwatch()
          if (healthy) connection.release()
          else connection.discard({ kind: 'connection', message: 'pooler check failed', cause: null })
        }
      })()
      this.#pooler = p
      p.catch(() => {
        if (this.#pooler === p) this.#pooler = undefined
      })
    }
    return this.#pooler
  }

  toDriverError(error: unknown): DriverError {
    const e = this.#adapter.toDriverError(error)
    // Node reports a TLS handshake with a server that has no TLS (postgres.js starts one even after
    // the server said `N`) as it reports one the network cut: the meter saw which it was.
    const last = this.meters.lastFailure
    if (e.kind !== 'connection' || !last?.tlsRefused || !TLS_CUT.test(e.message)) return e
    // Once: the error may be read again (a reservation's, then the read's or the flush's).
    if (e.message.includes(last.reason)) return e
    return { ...e, message: `${e.message}: ${last.reason}` }
  }

  /**
   * A connection of the pool before `deadline`, as `make` makes it (in the same promise: the session
   * of a reservation); one that comes later goes back at once. A failure to get one is a connection
   * error naming where the client tried. Given up at the deadline, with no other reservation waiting,
   * the connections that began opening meanwhile and are not ready yet are ended (see
   * {@link #endStalledOpenings}).
   */
  #acquire<T>(deadline: number, make: (connection: AdapterConnection) => T, admitted?: boolean): Promise<T> {
    const giveUp = new GiveUp()
    const started = performance.now()
    this.#waiting++
    return new Promise((resolve, reject) => {
      let done = false
      const alarm = setAlarm(deadline, () => {
        done = true
        this.#waiting--
        giveUp.give()
        // At most the latest few: while reservations keep waiting (an outage under load), none is looked at.
        if (this.#gaveUp.push({ since: started, deadline, giveUp }) > MAX_GAVE_UP) this.#gaveUp.shift()
        this.#endStalledOpenings()
        reject(deadlineError(this.address))
      })
      this.#adapter.acquire(this.meters, giveUp, admitted).then(
        (connection) => {
          if (done) return connection.release()
          done = true
          this.#waiting--
          if (this.#gaveUp.length > 0) this.#endStalledOpenings()
          alarm.cancel()
          let made: T
          try {
            made = make(connection)
          } catch (e) {
            connection.release()
            reject(e)
            return
          }
          resolve(made)
        },
        (error: unknown) => {
          if (done) return
          done = true
          this.#waiting--
          if (this.#gaveUp.length > 0) this.#endStalledOpenings()
          alarm.cancel()
          reject(this.#connectError(error))
        },
      )
    })
  }

  /**
   * Ends the connections that opened for the reservations that gave up (each waiting from `since`
   * until its `deadline`) and are still not ready for queries (the server silent: a path that
   * black-holes its packets, a stuck middlebox), once no other reservation waits (those given up
   * while one did are looked at then: two reads given up at one deadline, each opening a connection,
   * left the first one's to hold a slot of the pool). Left to the driver, such an
   * opening holds a slot of the pool until the driver's connect timeout: none by default on
   * node-postgres (every later reservation then failed, and the client's end never settled), 30 s on
   * postgres.js. Ended, the pool opens a new connection for the next reservation.
   *
   * Which openings are the reservation's: those the adapter says it made for it (node-postgres, whose
   * sockets not connected yet it tells too: a host that drops the packets);
   * else those that began opening within the first tenth of its wait (at most 100 ms), silent for
   * nearly all of it, and not one the application's own queries opened later on a slow network.
   */
  #endStalledOpenings(): void {
    if (this.#waiting > 0) return
    for (const { since, deadline, giveUp } of this.#gaveUp.splice(0)) {
      const openedFor = this.#adapter.openedFor
      const latest = since + Math.min(100, (deadline - since) / 10)
      const openings = this.meters.unclaimedOpenings(
        since,
        openedFor === undefined ? latest : performance.now(),
      )
      for (let i = 0; i < openings.length; i++) {
        const m = openings[i]!
        if (m.meter.ready) continue
        if (openedFor !== undefined && openedFor.call(this.#adapter, m.socket) !== giveUp) continue
        if (this.#adapter.endStalledOpening === undefined) m.socket.destroy()
        else this.#adapter.endStalledOpening(m.socket)
      }
      // Not connected at all yet (the host drops the packets): no meter knows them.
      for (const socket of this.#adapter.unconnectedFor?.(giveUp) ?? []) socket.destroy()
    }
  }

  /** A failure to get a connection, as a connection error naming where the client tried to connect. */
  #connectError(error: unknown): DriverError {
    const e = this.toDriverError(error)
    // The pool's own wait given up: no connection was tried anywhere.
    if (e.code === 'POOL_TIMEOUT') return e
    const where = this.meters.lastFailure?.address ?? this.address
    const message = e.message.includes(where) ? e.message : `could not connect to ${where}: ${e.message}`
    return { ...e, kind: 'connection', message }
  }
}

/** Reservations given up kept to be looked at (see `RuntimeDriver.#endStalledOpenings`). */
const MAX_GAVE_UP = 64

/** A reservation given up at its deadline, whose openings are yet to be looked at. */
interface GaveUpReservation {
  readonly since: number
  readonly deadline: number
  readonly giveUp: GiveUp
}

/** No answer within `timeoutMs`: a connection error of code `DEADLINE` (see `Driver.query`). */
function noAnswerError(address: string, timeoutMs: number): DriverError {
  const message = `no answer from ${address} within ${timeoutMs} ms`
  return { kind: 'connection', code: 'DEADLINE', message, cause: new Error(message) }
}

/** `answer`, or the rejection `late()` makes once `deadline` passed (the answer left unwatched). */
function withinDeadline<T>(answer: Promise<T>, deadline: number, late: () => DriverError): Promise<T> {
  if (!Number.isFinite(deadline)) return answer
  return new Promise<T>((resolve, reject) => {
    const alarm = setAlarm(deadline, () => reject(late()))
    answer.then(
      (value) => {
        alarm.cancel()
        resolve(value)
      },
      (error: unknown) => {
        alarm.cancel()
        reject(error)
      },
    )
  })
}
