import type { ReceivedMessage } from './connection-log.ts'

/**
 * What the server does at a fault: `close` ends the connection (FIN), `reset` resets it (RST),
 * `hang` stops answering (it keeps reading, and logging, and the connection stays open until the
 * client or `close()` ends it), `{ delayMs }` holds the answer back that long, `{ partial: n }` writes
 * the first `n` bytes of what it had to write (the answer to the message, and to the messages before
 * it not yet written), then ends the connection.
 */
export type FaultAction =
  | 'close'
  | 'reset'
  | 'hang'
  | { readonly delayMs: number }
  | { readonly partial: number }

/**
 * Which message sets the fault off, counting on each connection from when the fault was armed (on a
 * connection opened later, from its first message, the startup included):
 * - `{ message: n }`: the n-th message (1-based);
 * - `{ byte: n }`: once n bytes arrived: the messages wholly before the n-th byte are handled, the
 *   rest is never read (a cut at that offset of what the client sent; `when` does not apply);
 * - `{ statement }`: a Query holding a statement, or an Execute of a statement, whose normalized text
 *   matches (see `StatementMatch` for strings and patterns);
 * - `'commit'`: the message that commits a transaction: one holding a COMMIT of a transaction block,
 *   or a Query that runs outside a block and holds a statement that writes (anything but SELECT, SHOW,
 *   VALUES, TABLE, SET, RESET), which the server commits at its end, or the Sync ending such an
 *   extended-protocol transaction;
 * - a predicate of the message.
 */
export type FaultTrigger =
  | { readonly message: number }
  | { readonly byte: number }
  | { readonly statement: string | RegExp }
  | 'commit'
  | ((message: ReceivedMessage) => boolean)

/**
 * When, relative to the message that sets it off: `before` handling it (it is not run: a COMMIT then
 * does not commit), `before-answer` (it ran, a COMMIT committed, but nothing of its answer was
 * written), `after-answer` (its answer, and anything not yet written before it, was written).
 */
export type FaultTiming = 'before' | 'before-answer' | 'after-answer'

/**
 * A fault the server injects into a connection.
 *
 * @example
 * server.arm({ at: 'commit', action: 'close' }) // the COMMIT runs, its answer never leaves
 * server.arm({ at: { message: 2 }, when: 'before', action: 'reset', connection: 1 })
 */
export interface ScriptedFault {
  readonly at: FaultTrigger
  readonly action: FaultAction
  /** Default `before`, except for `'commit'` and `partial`: `before-answer`. */
  readonly when?: FaultTiming
  /** Only on this connection (its number, 1 for the first accepted); default any. */
  readonly connection?: number
  /** How many times it fires (default 1). */
  readonly times?: number
}

/** A fault armed on the server, with where each connection stood when it was armed. */
export class ArmedFault {
  readonly fault: ScriptedFault
  readonly when: FaultTiming
  #fired = 0
  /** Per connection: messages and bytes it had received when the fault was armed. */
  readonly #baselines = new Map<number, { readonly messages: number; readonly bytes: number }>()

  constructor(fault: ScriptedFault, open: readonly { id: number; messages: number; bytes: number }[]) {
    this.fault = fault
    const partial = typeof fault.action === 'object' && 'partial' in fault.action
    this.when = fault.when ?? (fault.at === 'commit' || partial ? 'before-answer' : 'before')
    for (const c of open) this.#baselines.set(c.id, { messages: c.messages, bytes: c.bytes })
  }

  /** Whether it may still fire on connection `id`. */
  live(id: number): boolean {
    const left = (this.fault.times ?? 1) - this.#fired
    return left > 0 && (this.fault.connection === undefined || this.fault.connection === id)
  }

  fire(): void {
    this.#fired++
  }

  /** The byte offset of connection `id`'s stream it cuts at, if it is a byte fault. */
  byteOffset(id: number): number | undefined {
    const at = this.fault.at
    if (typeof at !== 'object' || !('byte' in at)) return undefined
    return (this.#baselines.get(id)?.bytes ?? 0) + at.byte
  }

  /** The message number (in the connection's count) it fires at, if it is a message fault. */
  messageNumber(id: number): number | undefined {
    const at = this.fault.at
    if (typeof at !== 'object' || !('message' in at)) return undefined
    return (this.#baselines.get(id)?.messages ?? 0) + at.message
  }
}
