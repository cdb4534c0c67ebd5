import { COMPLETED } from '../driver-errors.ts'
import type { PgCallback, PgConnection, PgQuery, PgQueryClass } from './client-types.ts'

/** A simple-protocol query of pipeflush's: its COPY statements' data leaves with it (none: `[]`). */
export type SimpleQueryClass = new (
  text: string,
  copies: readonly Iterable<Buffer>[],
  callback: PgCallback,
) => PgQuery

const made = new WeakMap<PgQueryClass, SimpleQueryClass>()

/**
 * A subclass of the client's own `Query` class for a simple-protocol message of several statements.
 * Being a subclass, it is accepted on pools in `pipeline` mode, and answered like any query (a result
 * per statement, or the error). Beyond pg's own:
 * - it counts the statements the server completed: an error it is answered with carries the count
 *   (see `COMPLETED`), which tells the failed statement when the server names no table (a trigger's
 *   RAISE, a domain's check);
 * - with `COPY ... FROM STDIN` statements, `submit` writes the Query message and right behind it each
 *   COPY's data as CopyData messages ended by CopyDone, each chunk written as it is made; the server
 *   reads them when it reaches each COPY. Its request for data (CopyInResponse) then needs no answer:
 *   pg's own Query would answer it with CopyFail.
 */
export function simpleQueryClass(base: PgQueryClass): SimpleQueryClass {
  let simpleQuery = made.get(base)
  if (simpleQuery === undefined) {
    simpleQuery = class SimpleQuery extends base {
      readonly #copies: readonly Iterable<Buffer>[]
      #completed = 0

      constructor(text: string, copies: readonly Iterable<Buffer>[], callback: PgCallback) {
        super(text, undefined, callback)
        this.#copies = copies
      }

      override handleCommandComplete(message: unknown, connection: PgConnection): void {
        this.#completed++
        super.handleCommandComplete(message, connection)
      }

      override handleError(error: unknown, connection: PgConnection): void {
        // Only where it can be: an error a type parser of the application threw may be frozen.
        if (typeof error === 'object' && error !== null && Object.isExtensible(error))
          (error as { [COMPLETED]?: number })[COMPLETED] = this.#completed
        super.handleError(error, connection)
      }

      override submit(connection: PgConnection): Error | null | undefined {
        if (this.#copies.length === 0) return super.submit(connection)
        const stream = connection.stream
        stream.cork()
        let refused: Error | null | undefined
        try {
          refused = super.submit(connection)
        } finally {
          stream.uncork()
        }
        if (refused) return refused
        // Each chunk leaves as it is made (see `copyRows`): the server reads the first while the
        // next is written.
        try {
          for (const chunks of this.#copies) {
            for (const chunk of chunks) connection.sendCopyFromChunk(chunk)
            connection.endCopyFrom()
          }
        } catch (e) {
          // Data cut short cannot be finished: the connection ends, and the query with it.
          stream.destroy(e instanceof Error ? e : new Error(String(e)))
        }
        return undefined
      }

      override handleCopyInResponse(connection: PgConnection): void {
        // The data already went with the message; a message without data has no COPY.
        if (this.#copies.length === 0) super.handleCopyInResponse(connection)
      }
    }
    made.set(base, simpleQuery)
  }
  return simpleQuery
}
