import type { DriverError } from '../driver.ts'
import type { PostgresJsSql, SocketFactory } from './client-types.ts'

/** The options of postgres.js's `sql.end()`: `timeout` in seconds, after which it destroys connections. */
interface EndOptions {
  readonly timeout?: number | null
}

type End = (options?: EndOptions) => Promise<void>

/**
 * The application's `sql.end()` made to wait for what pipeflush does on the client, then end it as
 * postgres.js does; nothing pipeflush starts once it was called.
 *
 * postgres.js 3.4.9 never ends a client whose `end()` is called while a connection is reserved (the
 * connection, released later, goes back to the pool instead of closing) or while a connection is
 * opened for a reservation without the array type fetch (item 4 of this folder's README: pipeflush
 * hands it to the pool a macrotask after it is ready): `end()` then never settles. Every flush and
 * read batch of pipeflush reserves a connection, so a shutdown that ends the client while a request
 * is in flight, or just after one whose reservation opened a connection, would hang. Wrapped, `end()`
 * waits until pipeflush's reservations are given back and the connections opening are ready (or
 * closed), at most `timeout` seconds when given, then calls postgres.js's `end` with what is left of
 * the timeout. Meanwhile and after, pipeflush refuses to reserve a connection on the client
 * (`ended`), as postgres.js refuses a query once its `end()` was called (its `reserve()` does not:
 * it would open a new connection on an ended client, which keeps the process alive).
 *
 * @example
 * const end = new ClientEnd(sql) // sql.end() now waits for `end.begin()`'s callbacks
 * const done = end.begin() // a reservation asked
 * // ... the reservation released:
 * done()
 */
export class ClientEnd {
  readonly #address: string
  #busy = 0
  #waiting: (() => void)[] = []
  #ending: Promise<void> | undefined

  constructor(sql: PostgresJsSql, address: string) {
    this.#address = address
    const client = sql as unknown as { end?: unknown }
    const end = client.end
    if (typeof end !== 'function') return
    client.end = (options?: EndOptions): Promise<void> => {
      this.#ending ??= this.#end(options, (o) => (end as End).call(sql, o))
      return this.#ending
    }
  }

  /** Whether the application called `sql.end()`. */
  get ending(): boolean {
    return this.#ending !== undefined
  }

  /** The error a reservation asked once the client is ending gets: nothing was sent. */
  ended(): DriverError {
    const message = `cannot use the postgres.js client of ${this.#address} after its end() was called`
    return { kind: 'connection', code: 'CONNECTION_ENDED', message, cause: new Error(message) }
  }

  /**
   * Marks one thing pipeflush does on the client (a reservation, from its asking to its release; a
   * connection opening) as begun: `end()` waits until the returned function was called (once counts).
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
   * `factory` with each of its calls counted from the call until it returned the socket: postgres.js
   * calls it a timer after it decided to open a connection, and the socket is connected before it
   * returns (see {@link begin}).
   */
  counting(factory: SocketFactory): SocketFactory {
    return async (options) => {
      const done = this.begin()
      try {
        return await factory(options)
      } finally {
        done()
      }
    }
  }

  async #end(options: EndOptions | undefined, end: End): Promise<void> {
    const timeout = options?.timeout
    const started = performance.now()
    let timer: NodeJS.Timeout | undefined
    let late = false
    if (typeof timeout === 'number')
      timer = setTimeout(() => {
        late = true
        for (const resume of this.#waiting.splice(0)) resume()
      }, timeout * 1000)
    // Idle, then idle still a macrotask later: a reservation given a connection another gave back
    // leaves the one opened for it to a timer postgres.js set, which calls the factory.
    while (!late) {
      if (this.#busy > 0) await new Promise<void>((resume) => this.#waiting.push(resume))
      if (late) break
      await new Promise((resume) => setTimeout(resume, 0))
      if (this.#busy === 0) break
    }
    clearTimeout(timer)
    if (typeof timeout !== 'number') return end(options)
    const left = Math.max(0, timeout - (performance.now() - started) / 1000)
    return end({ ...options, timeout: left })
  }
}
