import type pg from 'pg'

/** A call into a pg pool, and the client CPU (`process.cpuUsage`, µs) when it was made or answered. */
export interface PoolMark {
  readonly kind: 'connect' | 'connected' | 'query' | 'answer'
  readonly cpu: number
}

/** Marks the calls into one pool while recording (see {@link markPool}). */
export interface PoolMarks {
  /** Starts recording: the marks of one flush or load. */
  begin(): void
  /** Stops recording and answers the marks, in order. */
  end(): PoolMark[]
}

const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/**
 * Wraps `pool.connect()` (its promise and its callback forms) and the `query()` of every client it hands over so that, while recording,
 * each call and each answer is marked with the client CPU at that moment: where a library calls into
 * the pool, seen from outside it (nothing in the library patched). A query answered by a callback
 * (pg's pipelined queries) is marked when the callback runs, one answered by a promise when it
 * settles.
 *
 * @example
 * const marks = markPool(pool)
 * marks.begin()
 * await em.flush()
 * marks.end() // [{ kind: 'connect', cpu }, { kind: 'connected', cpu }, { kind: 'query', cpu }, { kind: 'answer', cpu }]
 */
export function markPool(pool: pg.Pool): PoolMarks {
  let marks: PoolMark[] | undefined
  const mark = (kind: PoolMark['kind']) => marks?.push({ kind, cpu: cpu() })
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown
  const wrapped = new WeakSet<object>()
  const handOver = (client: pg.PoolClient): pg.PoolClient => {
    mark('connected')
    if (!wrapped.has(client)) {
      wrapped.add(client)
      const query = client.query.bind(client) as (...a: unknown[]) => unknown
      ;(client as { query: unknown }).query = (...a: unknown[]) => {
        mark('query')
        const last = a[a.length - 1]
        if (typeof last === 'function') {
          a[a.length - 1] = (...result: unknown[]) => {
            mark('answer')
            return (last as (...r: unknown[]) => unknown)(...result)
          }
          return query(...a)
        }
        const submitted = a[0] as { submit?: unknown; callback?: unknown } | undefined
        if (typeof submitted?.submit === 'function' && typeof submitted.callback === 'function') {
          // A query object (pipeflush's simple messages): its callback answers it.
          const callback = submitted.callback as (...r: unknown[]) => unknown
          submitted.callback = (...result: unknown[]) => {
            mark('answer')
            return callback.apply(submitted, result)
          }
          return query(...a)
        }
        const answer = query(...a)
        if (!(answer instanceof Promise)) return answer
        return answer.then(
          (r) => {
            mark('answer')
            return r
          },
          (e: unknown) => {
            mark('answer')
            throw e
          },
        )
      }
    }
    return client
  }
  ;(pool as { connect: unknown }).connect = (...args: unknown[]) => {
    mark('connect')
    const callback = args[0]
    if (typeof callback === 'function') {
      // The callback form (pipeflush asks the pool so): the client handed over to the callback.
      return connect((error: unknown, client: pg.PoolClient | undefined, release: unknown) =>
        (callback as (...r: unknown[]) => unknown)(
          error,
          client === undefined || error ? client : handOver(client),
          release,
        ),
      )
    }
    return (connect() as Promise<pg.PoolClient>).then(handOver)
  }
  return {
    begin() {
      marks = []
    },
    end() {
      const out = marks ?? []
      marks = undefined
      return out
    },
  }
}

/**
 * The phases of one operation from its marks, µs: `plan` (start to `connect()`), `connect`,
 * `prepare` (the client handed over to its first `query()`), `send` (the first query to the last
 * answer), `settle` (the last answer to `end`). Undefined when the marks are not one connect and its
 * queries (a flush that fetched ids first, say).
 */
export function phasesOf(
  start: number,
  marks: readonly PoolMark[],
  end: number,
): { plan: number; connect: number; prepare: number; send: number; settle: number } | undefined {
  const connects = marks.filter((m) => m.kind === 'connect').length
  const first = marks.findIndex((m) => m.kind === 'query')
  const last = marks.findLastIndex((m) => m.kind === 'answer')
  if (connects !== 1 || marks[0]?.kind !== 'connect' || marks[1]?.kind !== 'connected' || first !== 2)
    return undefined
  if (last < first) return undefined
  return {
    plan: marks[0].cpu - start,
    connect: marks[1].cpu - marks[0].cpu,
    prepare: marks[first]!.cpu - marks[1].cpu,
    send: marks[last]!.cpu - marks[first]!.cpu,
    settle: end - marks[last]!.cpu,
  }
}
