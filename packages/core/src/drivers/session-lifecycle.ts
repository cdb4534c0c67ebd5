import type { DriverError } from './driver.ts'

/**
 * The bookkeeping every driver's session shares: whether its connection ended (and why, as a promise
 * too), the queries in flight, and giving the connection back once the flush asked for it and nothing
 * is in flight (at once when the connection ended or was terminated: the driver discards it).
 *
 * Written once, so both adapters give a connection back, or discard it, by the same rules.
 */
export class SessionLifecycle {
  #cause: DriverError | undefined
  /** Told of the end (see {@link onEnd}); undefined while none listens. */
  #endListeners: ((cause: DriverError) => void)[] | undefined = undefined
  #inFlight = 0
  #terminated = false
  #releaseWanted = false
  #released = false
  readonly #release: (broken: boolean) => void

  /** `release(broken)` gives the connection back; `broken` when it ended or was terminated. */
  constructor(release: (broken: boolean) => void) {
    this.#release = release
  }

  /**
   * Calls `listener` with the cause once the connection ends, in a microtask after it did (at once
   * in the next microtask if it had): as a promise of the end would. Returns how to stop listening.
   */
  onEnd(listener: (cause: DriverError) => void): () => void {
    let listening = true
    const cause = this.#cause
    if (cause !== undefined) {
      queueMicrotask(() => {
        if (listening) listener(cause)
      })
    } else {
      this.#endListeners ??= []
      this.#endListeners.push(listener)
    }
    return () => {
      if (!listening) return
      listening = false
      const listeners = this.#endListeners
      const i = listeners === undefined ? -1 : listeners.indexOf(listener)
      if (i >= 0) listeners!.splice(i, 1)
    }
  }

  /** Why the connection ended, once it did. */
  get cause(): DriverError | undefined {
    return this.#cause
  }

  get terminated(): boolean {
    return this.#terminated
  }

  /** Nothing may be sent any more. */
  get unusable(): boolean {
    return this.#cause !== undefined || this.#terminated
  }

  /**
   * `p` counted in flight until it settles; rejections become what `toError` makes of them. A
   * connection error ends the connection (the driver may report it before the socket's close: the
   * connection must not be sent on or given back meanwhile). An answer that comes after the
   * connection ended is not this query's (a driver that reconnects may settle a query left over from
   * the dead socket with what the new one answered first): it rejects with the end's cause.
   */
  track<T>(p: Promise<T>, toError: (e: unknown) => DriverError): Promise<T> {
    this.#inFlight++
    return p.then(
      (value) => {
        const cause = this.#cause
        this.#settled()
        if (cause !== undefined) throw cause
        return value
      },
      (error: unknown) => {
        const e = toError(error)
        if (e.kind === 'connection') this.end(e)
        this.#settled()
        throw e
      },
    )
  }

  /** The connection ended (the first cause wins); always a connection error. */
  end(cause: DriverError): void {
    if (this.#cause !== undefined) return
    const ended = cause.kind === 'connection' ? cause : { ...cause, kind: 'connection' as const }
    this.#cause = ended
    const listeners = this.#endListeners
    if (listeners !== undefined && listeners.length > 0) {
      // As a resolved promise calls its reactions: in a microtask, in the order they were added; one
      // that stops listening meanwhile is not called.
      queueMicrotask(() => {
        for (const listener of listeners.slice()) if (listeners.includes(listener)) listener(ended)
      })
    }
    this.#releaseIfIdle()
  }

  /** pipeflush terminated the connection; `cause` says so. */
  terminate(cause: DriverError): void {
    this.#terminated = true
    this.end(cause)
  }

  /** The flush is done with the connection. */
  release(): void {
    this.#releaseWanted = true
    this.#releaseIfIdle()
  }

  #settled(): void {
    this.#inFlight--
    this.#releaseIfIdle()
  }

  #releaseIfIdle(): void {
    if (!this.#releaseWanted || this.#released) return
    if (this.#inFlight > 0 && !this.unusable) return
    this.#released = true
    this.#release(this.unusable)
  }
}
