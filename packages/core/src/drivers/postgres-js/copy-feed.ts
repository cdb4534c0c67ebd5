import { Writable } from 'node:stream'
import { errors } from '../../errors.ts'
import type { PostgresJsQuery } from './client-types.ts'

/**
 * Feeds the `COPY ... FROM STDIN` statements of a simple-protocol query their data, in order, and
 * leaves the query to settle as any other: with every statement's result, or with the server's error.
 *
 * When the server reaches a COPY it asks for the data (CopyInResponse) and postgres.js hands the query
 * a `Writable` through `query.resolve`, which would settle the query with the stream. Wrapped here, the
 * stream is written and ended instead, and the query settles at ReadyForQuery like any other. This
 * avoids postgres.js's `.writable()`, whose stream never settles when the server rejects the data after
 * it was ended (its final callback is called only on success, and its error goes to a query already
 * settled with the stream): here the error reaches the query, which is still waiting. The data leaves
 * when the server asks for it: a COPY costs one round trip of its own.
 *
 * An error while the data is written (the server rejected a row early, the connection closed) destroys
 * the stream; the query rejects with that error, so the stream's own `error` event is only silenced.
 * A COPY beyond `copies` gets CopyFail: the server rejects it.
 */
export function feedCopies(query: PostgresJsQuery, copies: readonly Iterable<Buffer>[]): void {
  // Another postgres.js might settle queries otherwise: then fail before sending, not hang in COPY.
  if (!Object.hasOwn(query, 'resolve') || typeof query.resolve !== 'function')
    throw errors.internal('feedCopies', 'this postgres.js query has no own resolve to feed COPY data through')
  const resolve = query.resolve
  let next = 0
  query.resolve = (value: unknown) => {
    if (!(value instanceof Writable)) {
      resolve(value)
      return
    }
    value.on('error', () => {}) // the query itself rejects with the error
    const chunks = copies[next++]
    if (chunks === undefined) {
      value.destroy(new Error('pipeflush has no data for this COPY'))
      return
    }
    const copyFail = quietDestroy(value)
    writeAsMade(value, chunks, copyFail)
  }
}

/**
 * Writes the chunks of `chunks` to `stream` as they are made, one per turn of the event loop (or once
 * the stream drained), so that each leaves before the next is made: postgres.js writes a chunk to its
 * socket once the previous one was, and the server reads the first while the next is made. Then ends
 * the stream (CopyDone). A chunk that fails to be made sends CopyFail with the reason, which the
 * server answers with an error: the query rejects with it.
 */
function writeAsMade(stream: Writable, chunks: Iterable<Buffer>, copyFail: Writable['_destroy']): void {
  let iterator: Iterator<Buffer>
  const step = (): void => {
    if (stream.destroyed) return // the server left the COPY, or the connection ended
    let chunk: IteratorResult<Buffer>
    try {
      iterator ??= chunks[Symbol.iterator]()
      chunk = iterator.next()
    } catch (e) {
      ;(stream as unknown as { _destroy: Writable['_destroy'] })._destroy = copyFail
      stream.destroy(e instanceof Error ? e : new Error(String(e)))
      return
    }
    if (chunk.done) {
      stream.end()
      return
    }
    if (stream.write(chunk.value)) setImmediate(step)
    else stream.once('drain', step)
  }
  step()
}

/**
 * Makes destroying `stream` write nothing; answers what destroying it did (CopyFail). postgres.js's
 * stream answers a destroy with CopyFail and forgets the connection's current COPY stream; it is destroyed once finished (`autoDestroy`), after
 * the server completed the COPY, which may by then have reached the next COPY of the message: the
 * CopyFail would break that one (found by a message of two COPYs), and the connection would forget
 * its stream. A stream postgres.js destroys on an error needs no CopyFail either: the server already
 * left the COPY, or the connection is gone.
 */
function quietDestroy(stream: Writable): Writable['_destroy'] {
  const own = stream as unknown as { _destroy: Writable['_destroy'] }
  const copyFail = own._destroy
  own._destroy = (error, callback) => callback(error)
  return copyFail
}
