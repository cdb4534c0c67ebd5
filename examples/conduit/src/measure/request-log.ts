import type { MeteredFlush } from '@pipeflush/example-support'
import type { RoundTripCounter } from '@pipeflush/testkit'
import type { RequestObserver } from '../repositories/store.ts'

/** What one HTTP request cost the database. */
export interface RequestRecord {
  readonly method: string
  /** The path and query string as requested. */
  readonly url: string
  /** The route that served it (`GET /api/articles/:slug`), if any. */
  route: string | undefined
  status: number
  /** Time from the request's arrival to its answer's end, in ms. */
  ms: number
  /**
   * Round trips the pool's sockets counted while it ran (reads, flush, plain queries, connections
   * opened); undefined when another request overlapped it (the counter covers the whole pool).
   */
  roundTrips: number | undefined
  /** Its flushes (pipeflush), each report beside the socket's count of it. */
  readonly flushes: MeteredFlush[]
}

/** One request being served: the server names its route and ends it; the store tells its flushes. */
export interface RequestTrace extends RequestObserver {
  routed(route: string): void
  end(status: number): void
}

/**
 * The requests the server answered, in order, each with its round trips counted at the pool's socket
 * (the test kit's counter) and its flush reports. Counts are exact while requests run one at a time,
 * as the suite sends them; a request that overlapped another is kept with `roundTrips` undefined.
 *
 * @example
 * const log = new RequestLog(pool.counter)
 * // ... serve requests with it ...
 * log.records.map((r) => `${r.route}: ${r.roundTrips}`)
 */
export class RequestLog {
  readonly #counter: RoundTripCounter | undefined
  readonly #limit: number
  readonly #records: RequestRecord[] = []
  readonly #active = new Set<{ overlapped: boolean }>()

  /** `limit`: the records kept, the oldest dropped first (a server that runs for long keeps a bounded log). */
  constructor(counter?: RoundTripCounter, limit = 10_000) {
    this.#counter = counter
    this.#limit = limit
  }

  /** The requests answered since the last `clear()`, in the order they arrived. */
  get records(): readonly RequestRecord[] {
    return this.#records
  }

  clear(): void {
    this.#records.length = 0
  }

  /** Starts recording a request that just arrived. */
  begin(method: string, url: string): RequestTrace {
    const record: RequestRecord = {
      method,
      url,
      route: undefined,
      status: 0,
      ms: 0,
      roundTrips: undefined,
      flushes: [],
    }
    this.#records.push(record)
    if (this.#records.length > this.#limit) this.#records.shift()
    const state = { overlapped: this.#active.size > 0 }
    for (const other of this.#active) other.overlapped = true
    this.#active.add(state)
    const started = performance.now()
    const before = this.#counter?.read().roundTrips
    return {
      routed: (route) => {
        record.route = route
      },
      flushed: (flush) => {
        record.flushes.push(flush)
      },
      end: (status) => {
        this.#active.delete(state)
        record.status = status
        record.ms = performance.now() - started
        const after = this.#counter?.read().roundTrips
        if (!state.overlapped && before !== undefined && after !== undefined)
          record.roundTrips = after - before
      },
    }
  }
}
