import type { Driver, DriverError, Row } from '../drivers/driver.ts'
import { connectFailure } from '../drivers/driver-errors.ts'
import { errors, PipeflushError } from '../errors.ts'
import type { FlushPlan } from '../plan/types.ts'
import type { HeldTransaction } from '../read/held-transaction.ts'
import { FlushSession } from './flush-session.ts'
import {
  type ModeInput,
  type PipelineMode,
  type ReturnedRows,
  sendBurst,
  sendOff,
  sendWaves,
} from './modes.ts'
import { interruptionError } from './outcome.ts'
import { redactError } from './redact.ts'

/** What one flush sends, and how; `P` is what the caller prepares with the plan (what it sent). */
export interface FlushRequest<P extends { readonly plan: FlushPlan }> {
  readonly driver: Driver
  readonly mode: PipelineMode
  readonly flushId: string
  /** The flush settles within this many milliseconds, reserving a connection included (Infinity: no limit). */
  readonly timeoutMs: number
  /** Name pipelined statements (prepared once per connection). */
  readonly named: boolean
  /** Send a `burst` as named pipelined statements instead of one simple-protocol message. */
  readonly preparedBurst: boolean
  /** Statements sent first inside the transaction (the flush log's insert). */
  readonly opening: readonly string[]
  /**
   * Fills the id pool on the flush's connection (before the transaction) and assigns this flush's ids;
   * undefined when the pool has enough.
   */
  readonly fetchIds?: ((query: (text: string) => Promise<readonly Row[]>) => Promise<void>) | undefined
  /** Builds the plan (and what the caller keeps of it), once ids are assigned. */
  readonly prepare: () => P
  /**
   * Work on what `prepare` returned that needs no answer and cannot fail, started once the plan is on
   * its way, while the server works on it (in slices that let the driver go on writing); the flush
   * answers once it is over.
   */
  readonly whileSending?: ((prepared: P) => Promise<void>) | undefined
  /**
   * The unit of work's open locking transaction: the flush is sent on its connection, inside it (no
   * BEGIN, no reservation), and commits it.
   */
  readonly held?: HeldTransaction | undefined
}

/** What a flush did on its connection. */
export interface FlushResult<P> {
  /** What `prepare` returned: the plan that was sent. */
  readonly prepared: P
  /**
   * Round trips measured on the flush's connection, opening it included when it was opened for the
   * flush, and the openings the pool began for it on other connections (`FlushSession.openings`).
   */
  readonly roundTrips: number
  /** Whether a connection was opened for this flush. */
  readonly opened: boolean
  /** Of `roundTrips`, those of opening connections: its own, and openings the pool began for it. */
  readonly connectRoundTrips: number
  /** The rows each statement of the plan returned (see `PlannedStatement.returning`). */
  readonly returned: ReturnedRows
  /** Bytes written and received on the flush's connection (undefined: not observed). */
  readonly bytes: { readonly sent: number; readonly received: number } | undefined
}

const SEND: Readonly<Record<PipelineMode, (fs: FlushSession, input: ModeInput) => Promise<ReturnedRows>>> = {
  off: sendOff,
  waves: sendWaves,
  burst: sendBurst,
}

/**
 * One flush, top to bottom: reserve a connection (within the flush's deadline), fetch ids if the pool
 * is short, build the plan, send it by `mode`, and give the connection back (unless it ended or was
 * terminated: the pool replaces it). Every error leaving is a {@link PipeflushError} with secrets
 * redacted; which code follows the outcome rules (see `outcome.ts`).
 *
 * @example
 * const { roundTrips } = await runFlush({ driver, mode: 'burst', flushId, timeoutMs: 30_000, named: true, preparedBurst: false, opening: [], prepare: () => ({ plan }) })
 */
export async function runFlush<P extends { readonly plan: FlushPlan }>(
  request: FlushRequest<P>,
): Promise<FlushResult<P>> {
  const { driver, flushId, timeoutMs } = request
  const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
  let fs: FlushSession
  if (request.held !== undefined) {
    const session = await request.held.take()
    if (session === undefined) throw errors.locksReleased(request.held.ended ?? 'it ended', flushId)
    fs = new FlushSession(session, deadline, true)
  } else {
    try {
      fs = new FlushSession(await driver.reserve({ deadline }), deadline)
    } catch (e) {
      throw redactError(reservationError(driver.toDriverError(e), flushId, timeoutMs))
    }
  }
  let result: FlushResult<P>
  let openings: Promise<number>
  try {
    if (request.fetchIds) {
      await request.fetchIds(async (text) => {
        const { rowSets } = await fs.simple(text, { rowSets: 1 })
        return rowSets[rowSets.length - 1] ?? []
      })
    }
    const prepared = request.prepare()
    const sending = SEND[request.mode](fs, {
      plan: prepared.plan,
      flushId,
      opening: request.opening,
      named: request.named,
      preparedBurst: request.preparedBurst,
      inTransaction: fs.continued,
    })
    const meanwhile = request.whileSending?.(prepared)
    // Awaited only after the answer; never rejected when the sending is (it cannot fail).
    meanwhile?.catch(() => {})
    const returned = await sending
    await meanwhile
    result = {
      prepared,
      roundTrips: fs.roundTrips(),
      opened: !fs.continued && fs.session.opened,
      connectRoundTrips: fs.connectRoundTrips(),
      returned,
      bytes: fs.bytes(),
    }
    openings = fs.openings() // claimed before the connection goes back, counted once they are over
  } catch (e) {
    // A transaction a locking read began ends before its connection goes back, whatever failed.
    if (fs.continued && fs.usable) await fs.simple('rollback').catch(() => {})
    throw redactError(interruptionError(e, fs, flushId, timeoutMs))
  } finally {
    fs.release()
  }
  const more = await openings
  if (more === 0) return result
  return {
    ...result,
    roundTrips: result.roundTrips + more,
    connectRoundTrips: result.connectRoundTrips + more,
  }
}

function reservationError(e: DriverError, flushId: string, timeoutMs: number): PipeflushError {
  if (e.code === 'DEADLINE') return errors.flushTimeout(flushId, timeoutMs, 'still waiting for a connection')
  const failure = connectFailure(e)
  if (failure !== undefined)
    return errors.cannotConnect(failure, 'The flush', e.message, {
      flushId,
      sqlState: e.sqlState,
      cause: e.cause,
    })
  if (e.kind === 'connection') return errors.noConnection(flushId, e.message, e.cause)
  return new PipeflushError(
    'CONNECTION_LOST',
    `The flush could not get a connection: ${e.message}. Nothing was sent.`,
    {
      flushId,
      cause: e.cause,
    },
  )
}
