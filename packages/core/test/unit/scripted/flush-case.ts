import { type FlushReport, isPipeflushError, type PipeflushError, type PipelineMode } from '@pipeflush/core'
import type { ScriptedFault, ScriptedHandler, ScriptedServer } from '@pipeflush/testkit'
import { expect } from 'vitest'
import { byRoundTrip, statementLabel } from './message-labels.ts'
import { type ScriptedDriver, scripted } from './scripted-client.ts'
import { expectFlushed, expectPending, makeChanges } from './unit-of-work.ts'

/** A driver and a pipeline mode, and for node-postgres whether a burst is pipelined (`prepare: true`). */
export interface FlushSetup {
  readonly driver: ScriptedDriver
  readonly mode: PipelineMode
  readonly prepare?: boolean
}

/** The setups every fault is tried in: both drivers, every mode, and node-postgres's pipelined burst. */
export const FLUSH_SETUPS: readonly FlushSetup[] = [
  { driver: 'postgres.js', mode: 'off' },
  { driver: 'postgres.js', mode: 'waves' },
  { driver: 'postgres.js', mode: 'burst' },
  { driver: 'pg', mode: 'off' },
  { driver: 'pg', mode: 'waves' },
  { driver: 'pg', mode: 'burst' },
  { driver: 'pg', mode: 'burst', prepare: true },
]

/** Whether the COMMIT leaves with the statements (a burst): a lost answer then leaves the outcome unknown. */
export function commitsWithStatements(setup: FlushSetup): boolean {
  return setup.mode === 'burst'
}

/** How a flush with a fault ended, and what the server holds. */
export interface FlushCase {
  readonly error: PipeflushError | undefined
  readonly report: FlushReport | undefined
  /** Milliseconds from `flush()` to its settling. */
  readonly ms: number
  /** Whether the server committed the flush's statements. */
  readonly committed: boolean
  /** For a flush that failed: what the flush log answers for its id (`wasCommitted`). */
  readonly wasCommitted: boolean | undefined
  /** The messages the flush sent, by round trip (see `byRoundTrip`). */
  readonly sent: string[][]
}

/** Whether the server committed a transaction holding the flush's insert of its new author. */
function flushCommitted(server: ScriptedServer): boolean {
  return server.log.committedTransactions.some((t) =>
    t.statements.some((s) => statementLabel(s) === 'insert author'),
  )
}

/**
 * Flushes the changes of `makeChanges` in `setup` on a fresh scripted server and a warm connection, the
 * flush log on, with `fault` armed on that connection and `handlers` asked first; then checks what
 * every failed flush must leave: no stray error, the unit of work as it was, a flush log that agrees
 * with the server, and a retry that commits (when the server did not).
 *
 * @example
 * const c = await flushWith({ driver: 'pg', mode: 'waves' }, { fault: { at: { message: 2 }, action: 'close' } })
 * expect(c.error?.code).toBe('CONNECTION_LOST')
 */
export async function flushWith(
  setup: FlushSetup,
  what: { readonly fault?: ScriptedFault; readonly handlers?: readonly ScriptedHandler[] } = {},
  options: { readonly flushTimeoutMs?: number } = {},
): Promise<FlushCase> {
  const s = await scripted(
    setup.driver,
    {
      pipeline: setup.mode,
      flushLog: 'pipeflush_flush_log',
      flushTimeoutMs: options.flushTimeoutMs ?? 5000,
      ...(setup.prepare === undefined ? {} : { prepare: setup.prepare }),
    },
    what.handlers,
  )
  try {
    await s.warm()
    const em = s.root.fork()
    const changes = makeChanges(em)
    if (what.fault !== undefined) s.server.arm({ connection: 1, ...what.fault })
    const started = performance.now()
    const settled = await em.flush().then(
      (report) => ({ report, error: undefined }),
      (error: unknown) => ({ report: undefined, error }),
    )
    const ms = performance.now() - started
    const sent = byRoundTrip(s.server.log.messages.filter((m) => m.connection === 1))
    const committed = flushCommitted(s.server)
    s.server.disarm()
    if (settled.error !== undefined && !isPipeflushError(settled.error)) throw settled.error
    const error = settled.error
    let wasCommitted: boolean | undefined
    if (error !== undefined) {
      expectPending(em, changes)
      // Asked with time to open a new connection (the flush's may be gone), which the retry then finds.
      if (error.flushId !== undefined)
        wasCommitted = await s.root.fork({ flushTimeoutMs: 5000 }).wasCommitted(error.flushId)
      if (!committed) {
        // Flushed again, the same unit of work commits, once.
        await em.flush()
        expectFlushed(em, changes)
        expect(
          s.server.log.committedTransactions.filter((t) => t.statements.some((x) => x.includes('"author"'))),
        ).toHaveLength(1)
      }
    } else {
      expectFlushed(em, changes)
    }
    return { error, report: settled.report, ms, committed, wasCommitted, sent }
  } finally {
    await s.close()
  }
}

/**
 * Runs `tasks` at most `limit` at a time (each case has its own server and pool, and most of a case
 * is waiting: a reconnection, a timer), their results in order. A failure names the task it came from.
 */
export async function inParallel<T>(
  tasks: readonly { readonly label: string; readonly run: () => Promise<T> }[],
  limit = 4,
): Promise<T[]> {
  const out: T[] = new Array(tasks.length)
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++
      const task = tasks[i]!
      try {
        out[i] = await task.run()
      } catch (e) {
        if (e instanceof Error) e.message = `${task.label}: ${e.message}`
        throw e
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker))
  return out
}
