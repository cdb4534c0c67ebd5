import type { DriverError } from './driver.ts'

/**
 * The application's end of its client (postgres.js's `sql.end()`, pg's `pool.end()`), made to wait for
 * what pipeflush does on the client, after which nothing more is started: each adapter wraps its
 * client's `end` with {@link ClientEnd.end}, counts what it does with {@link ClientEnd.begin}, and
 * refuses to start anything once {@link ClientEnd.ending} (with {@link ClientEnd.ended}).
 *
 * Neither driver waits on its own for a request of pipeflush's in flight. postgres.js 3.4.9 never
 * ends a client whose connection is reserved, or opening for a reservation, when `end()` is called
 * (its README, item 18): every flush and read batch reserves one. pg-pool, once ending, never serves
 * the requests queued for a connection: a flush waiting for one failed after its whole timeout. Both
 * would also let pipeflush start work after the end (postgres.js's `reserve()` opens a connection on
 * an ended client). Wrapped, the end waits until pipeflush's reservations are given back (the queued
 * ones served first) and the connections it counts as opening are ready or closed, at most
 * `timeout` seconds when the driver's end takes one, then calls the driver's end with what is left.
 *
 * @example
 * const end = new ClientEnd(() => refusal)
 * const driverEnd = sql.end
 * sql.end = (o) => end.end(o?.timeout ?? undefined, (left) => driverEnd.call(sql, { ...o, timeout: left }))
 * const done = end.begin() // a reservation asked; the end waits for
 * done() // its release
 */
export class ClientEnd {
  readonly #refusal: () => DriverError
  #busy = 0
  #waiting: (() => void)[] = []
  #ending: Promise<void> | undefined

  /** `refusal`: what is refused once the client is ending, as the driver words it. */
  constructor(refusal: () => DriverError) {
    this.#refusal = refusal
  }

  /** Whether the application ended the client. */
  get ending(): boolean {
    return this.#ending !== undefined
  }

  /** The error of what pipeflush would start once the client is ending: nothing was sent. */
  ended(): DriverError {
    return this.#refusal()
  }

  /**
   * Marks one thing pipeflush does on the client (a reservation, from its asking to its release; a
   * connection opening) as begun: the end waits until the returned function was called (once counts).
   */
  begin(): () => void {
    this.#busy++
    let done = false
    return () => {
      if (done) return
      done = true
      if (--this.#busy === 0) for (const resume of this.#waiting.splice(0)) resume()
    }
  }

  /**
   * Work started now that reserves its connection later (a read batch gathers its reads until the
   * next macrotask): counted as begun (see {@link begin}), its reservations served even once the
   * client is ending (see `DriverAdapter.acquire`). The refusal instead when the client is ending.
   */
  admit(): (() => void) | DriverError {
    return this.#ending === undefined ? this.begin() : this.#refusal()
  }

  /** `make` with each of its calls counted (see {@link begin}) until what it returns settles. */
  counting<A extends unknown[], R>(make: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
      const done = this.begin()
      try {
        return await make(...args)
      } finally {
        done()
      }
    }
  }

  /**
   * The client's end: once nothing counted is left (and still none a macrotask later: postgres.js
   * opens a connection a timer after it decided to), or `timeout` seconds passed, `end` is called with
   * the seconds left of the timeout (undefined without one). Called again, the same promise.
   */
  end(timeout: number | undefined, end: (left: number | undefined) => Promise<void>): Promise<void> {
    this.#ending ??= this.#idle(timeout).then((left) => end(left))
    return this.#ending
  }

  /** Resolves once idle or after `timeout` seconds: the seconds left, or undefined without a timeout. */
  async #idle(timeout: number | undefined): Promise<number | undefined> {
    const started = performance.now()
    let timer: NodeJS.Timeout | undefined
    let late = false
    if (timeout !== undefined)
      timer = setTimeout(() => {
        late = true
        for (const resume of this.#waiting.splice(0)) resume()
      }, timeout * 1000)
    while (!late) {
      if (this.#busy > 0) {
        // Some holds end by timers that do not keep the process alive (see the adapters): the end
        // being awaited does, until they are over.
        const alive = setInterval(() => {}, KEEP_ALIVE_MS)
        await new Promise<void>((resume) => this.#waiting.push(resume))
        clearInterval(alive)
      }
      if (late) break
      await new Promise((resume) => setTimeout(resume, 0))
      if (this.#busy === 0) break
    }
    clearTimeout(timer)
    return timeout === undefined ? undefined : Math.max(0, timeout - (performance.now() - started) / 1000)
  }
}

/** The period of the timer that keeps the process alive while an end waits (it never needs to fire). */
const KEEP_ALIVE_MS = 60_000
