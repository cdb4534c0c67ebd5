import type { DriverError } from './driver.ts'

/**
 * The bookkeeping every driver's session shares: whether its connection ended (and why, as a promise
 * too), the queries in flight, and giving the connection back once the flush asked for it and nothing
 * is in flight (at once when the connection ended or was terminated: the driver discards it).
 *
 * Written once, so both adapters give a connection back, or discard it, by the same rules.
 */
export class SessionLifecycle {
  readonly ended: Promise<DriverError>
  #cause: DriverError | undefined
  #resolveEnded: (cause: DriverError) => void = () => {}
  #inFlight = 0
  #terminated = false
  #releaseWanted = false
  #released = false
  readonly #release: (broken: boolean) => void

  /** `release(broken)` gives the connection back; `broken` when it ended or was terminated. */
  constructor(release: (broken: boolean) => void) {
    this.#release = release
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve
    })
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
    this.#cause = cause.kind === 'connection' ? cause : { ...cause, kind: 'connection' }
    this.#resolveEnded(this.#cause)
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
