import { errors } from '../errors.ts'
import { type Alarm, setAlarm } from './deadline-alarm.ts'
import type { DriverError, PipelinedStatement, Session, SimpleResult, StatementResult } from './driver.ts'

/**
 * How long a send may stay unanswered after its connection's socket ended. The drivers reject in-flight
 * queries as the socket closes; this bounds a driver that does not.
 */
export const ENDED_GRACE_MS = 200

/** A connection error for an answer that cannot be the one to what was sent. */
function mismatchError(why: string): DriverError {
  return { kind: 'connection', code: 'ANSWER_MISMATCH', message: why, cause: new Error(why) }
}

/** Why a send got no answer: the flush's deadline passed, or its connection ended. */
export class Interrupted extends Error {
  readonly reason: 'timeout' | 'ended'
  readonly driverError: DriverError | undefined

  constructor(reason: 'timeout' | 'ended', driverError?: DriverError) {
    super(reason === 'timeout' ? 'the flush timed out' : (driverError?.message ?? 'the connection ended'))
    this.name = 'Interrupted'
    this.reason = reason
    this.driverError = driverError
  }
}

/**
 * A driver session as a flush or a read uses it, with the invariants every send relies on, written
 * once:
 * - nothing is sent after the connection's socket ended or the deadline passed;
 * - every send settles: with its answer, or `Interrupted` once the deadline passes (the connection is
 *   then terminated, so the server rolls back what did not reach its COMMIT and nothing arrives late on
 *   a connection the pool reuses) or at most {@link ENDED_GRACE_MS} after the socket ended;
 * - an answer that cannot be the message's ends the connection (see {@link simple});
 * - the round trips: measured on the socket where the driver can, else the sends that waited.
 *
 * A flush's session adds what it must know of its transaction (`flush/flush-session.ts`).
 */
export class GuardedSession {
  readonly session: Session
  readonly #deadline: number
  #waits = 0
  #timedOut = false

  /** What the connection had measured before this session began using it (see `continued`). */
  readonly #start: { readonly roundTrips: number; readonly sent: number; readonly received: number }

  /**
   * `continued`: the connection was reserved earlier (a transaction a locking read began): round
   * trips and bytes count from now, and no opening is this session's.
   */
  constructor(session: Session, deadline: number, continued = false) {
    this.session = session
    this.#deadline = deadline
    const bytes = continued ? session.bytes?.() : undefined
    this.#start = {
      roundTrips: continued ? (session.roundTrips() ?? 0) : 0,
      sent: bytes?.sent ?? 0,
      received: bytes?.received ?? 0,
    }
    this.continued = continued
  }

  /** The connection was reserved before this session (see the constructor). */
  readonly continued: boolean

  /** Whether `send` may still be called. */
  get usable(): boolean {
    return !this.session.isEnded() && !this.#timedOut
  }

  /**
   * One simple-protocol message; `copies`: the data of each COPY in `text` (see {@link Session.simple});
   * `rowSets`: how many of its statements
   * return rows. An answer that cannot be the message's (no command tag, another number of row sets)
   * means the driver's queue and the connection disagree: the connection is terminated and the send
   * fails as if the connection had ended (never a success built on someone else's answer).
   */
  simple(
    text: string,
    options: { readonly copies?: readonly Iterable<Buffer>[]; readonly rowSets?: number } = {},
  ): Promise<SimpleResult> {
    this.#before()
    const copies = options.copies
    if (copies !== undefined) this.#waits += copies.length * (this.session.copyRoundTrips ?? 0)
    const answer = this.#guard(
      copies === undefined || copies.length === 0
        ? this.session.simple(text)
        : this.session.simple(text, copies),
    )
    return answer.then((result) => {
      const rowSets = options.rowSets
      if (result.lastCommand !== '' && (rowSets === undefined || result.rowSets.length === rowSets))
        return result
      this.session.terminate()
      const why = `the answer does not match the message sent (command tag "${result.lastCommand}", ${result.rowSets.length} row sets${rowSets === undefined ? '' : ` of ${rowSets}`}); the connection was terminated`
      throw new Interrupted('ended', mismatchError(why))
    })
  }

  /** Extended-protocol statements pipelined in one write (the session must have `pipeline`). */
  pipeline(statements: readonly PipelinedStatement[]): Promise<PromiseSettledResult<StatementResult>[]> {
    const pipeline = this.session.pipeline
    if (pipeline === undefined)
      throw errors.internal('GuardedSession.pipeline', 'the session cannot pipeline')
    this.#before()
    return this.#guard(pipeline.call(this.session, statements))
  }

  /** Bytes written and received on the connection since the reservation (undefined: not observed). */
  bytes(): { readonly sent: number; readonly received: number } | undefined {
    const bytes = this.session.bytes?.()
    if (bytes === undefined) return undefined
    return { sent: bytes.sent - this.#start.sent, received: bytes.received - this.#start.received }
  }

  /** Round trips of this flush on its connection. */
  roundTrips(): number {
    const measured = this.session.roundTrips()
    return measured === undefined ? this.#waits : measured - this.#start.roundTrips
  }

  /**
   * Round trips of openings the pool began while this flush waited for its connection, on other
   * connections (see `Session.openings`): claimed now, counted when they are over.
   */
  openings(): number | Promise<number> {
    if (this.continued) return 0
    const claimed = this.session.openings?.(this.#deadline) ?? 0
    return typeof claimed === 'number' ? claimed : claimed.catch(() => 0)
  }

  /**
   * {@link roundTrips}, {@link connectRoundTrips} and {@link bytes} at once (the socket found once
   * where the session measures them together): what a flush or a read reports when it is over.
   */
  costs(): {
    readonly roundTrips: number
    readonly connectRoundTrips: number
    readonly bytes: { readonly sent: number; readonly received: number } | undefined
  } {
    const session = this.session
    if (session.costs === undefined)
      return {
        roundTrips: this.roundTrips(),
        connectRoundTrips: this.connectRoundTrips(),
        bytes: this.bytes(),
      }
    const measured = session.costs()
    const start = this.#start
    return {
      roundTrips: measured.roundTrips === undefined ? this.#waits : measured.roundTrips - start.roundTrips,
      connectRoundTrips: this.continued ? 0 : (measured.connectRoundTrips ?? 0),
      bytes:
        measured.bytes === undefined
          ? undefined
          : { sent: measured.bytes.sent - start.sent, received: measured.bytes.received - start.received },
    }
  }

  /** Round trips it took to get the connection (0 unless it was opened for this flush). */
  connectRoundTrips(): number {
    return this.continued ? 0 : (this.session.connectRoundTrips() ?? 0)
  }

  /** Gives the connection back (discarded by the driver when it ended or was terminated). */
  release(): void {
    this.session.release()
  }

  #before(): void {
    if (this.#timedOut || performance.now() >= this.#deadline) {
      this.#timedOut = true
      this.session.terminate()
      throw new Interrupted('timeout')
    }
    if (this.session.isEnded()) throw new Interrupted('ended', undefined)
    this.#waits++
  }

  /** `answer`, or `Interrupted` at the deadline or shortly after the socket ended. */
  #guard<T>(answer: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false
      let alarm: Alarm | undefined
      let grace: NodeJS.Timeout | undefined
      let stopListening: (() => void) | undefined
      const finish = (settle: () => void) => {
        if (done) return
        done = true
        alarm?.cancel()
        stopListening?.()
        clearTimeout(grace)
        settle()
      }
      // Handled first: never an unhandled rejection, even if what follows throws or interrupts it.
      answer.then(
        (value) => finish(() => resolve(value)),
        (error: unknown) => finish(() => reject(error)),
      )
      alarm = setAlarm(this.#deadline, () => {
        this.#timedOut = true
        // The backend may be waiting on a lock or running on: cancelled, it lets go of its locks
        // and connection slot now, not when it next touches the closed socket.
        this.session.terminate({ cancel: true })
        finish(() => reject(new Interrupted('timeout')))
      })
      stopListening = this.session.onEnd((cause) => {
        if (done) return
        grace = setTimeout(() => finish(() => reject(new Interrupted('ended', cause))), ENDED_GRACE_MS)
      })
    })
  }
}
