import type { PostgresJsSql } from './client-types.ts'

/**
 * What pipeflush reads of a postgres.js query (its class is not exported: its prototype is found on a
 * query made and never run).
 */
interface QueryLike {
  readonly strings: readonly string[]
  readonly executed: boolean
  readonly handler: { readonly name?: string }
  active: boolean
  reject: (error: unknown) => void
}

/** The query prototypes guarded so far: one per copy of postgres.js the process loaded. */
const guarded = new WeakSet<object>()

/**
 * Makes the queries postgres.js 3.4.9 sends on its own as a connection opens never reject: its array
 * types (`fetchArrayTypes`, with `fetch_types` on) and a server's state (with `target_session_attrs`).
 * Nothing awaits them: rejected (their connection cut before the answer, then the client ended, or
 * its reopening refused or failed), they were unhandled rejections, which end a process under Node's
 * defaults. Failed, such a query now stays unsettled, as postgres.js leaves it when the connection
 * closes with an error: a reopening's first ReadyForQuery settles it with no rows, and an ended
 * client's is let go with the connection. The application's own queries are left as they are: only a
 * query postgres.js runs itself, on a connection (its `execute`, not the client's `handler`), with
 * one of those two texts, is guarded.
 *
 * Installed on postgres.js's query class, shared by every client of that copy of postgres.js: once.
 *
 * @example
 * guardDriverQueries(sql) // before the client's first connection opens
 */
export function guardDriverQueries(sql: PostgresJsSql): void {
  // Made, never run: postgres.js runs a query once it is awaited (`then`, `catch`) or executed.
  const proto = Object.getPrototypeOf(sql.unsafe('select 1')) as { handle?: unknown } | null
  if (proto === null || guarded.has(proto) || typeof proto.handle !== 'function') return
  guarded.add(proto)
  const handle = proto.handle as (this: QueryLike) => unknown
  proto.handle = function (this: QueryLike) {
    if (!this.executed && isDriverQuery(this)) {
      this.reject = () => {
        this.active = false
      }
    }
    return handle.call(this)
  }
}

/** Whether `query` is one postgres.js runs itself as a connection opens (see {@link guardDriverQueries}). */
function isDriverQuery(query: QueryLike): boolean {
  if (query.handler?.name !== 'execute' || query.strings.length !== 1) return false
  const text = query.strings[0]!
  return DRIVER_TEXTS.some((marks) => marks.every((mark) => text.includes(mark)))
}

/** Parts of the texts of the array types' query and of the server state's. */
const DRIVER_TEXTS: readonly (readonly string[])[] = [
  ['select b.oid, b.typarray', 'from pg_catalog.pg_type a'],
  ['show transaction_read_only', 'pg_catalog.pg_is_in_recovery()'],
]
