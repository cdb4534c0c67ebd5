import type { PgCallback, PgConnection, PgQuery, PgQueryClass } from './client-types.ts'

/** A simple-protocol query whose COPY statements' data leaves with it. */
export type CopyQueryClass = new (
  text: string,
  copies: readonly Iterable<Buffer>[],
  callback: PgCallback,
) => PgQuery

const made = new WeakMap<PgQueryClass, CopyQueryClass>()

/**
 * A subclass of the client's own `Query` class for a simple-protocol message of statements that
 * contains `COPY ... FROM STDIN` statements: `submit` writes the Query message and right behind it
 * each COPY's data as CopyData messages ended by CopyDone, each chunk written as it is made; the
 * server reads them when it reaches each COPY. The server's request for data (CopyInResponse) then needs no answer: pg's
 * own Query would answer it with CopyFail. Being a subclass, it is accepted on pools in `pipeline`
 * mode, and answered like any query (a result per statement, or the error).
 */
export function copyQueryClass(base: PgQueryClass): CopyQueryClass {
  let copyQuery = made.get(base)
  if (copyQuery === undefined) {
    copyQuery = class CopyQuery extends base {
      readonly #copies: readonly Iterable<Buffer>[]

      constructor(text: string, copies: readonly Iterable<Buffer>[], callback: PgCallback) {
        super(text, undefined, callback)
        this.#copies = copies
      }

      override submit(connection: PgConnection): Error | null | undefined {
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

      override handleCopyInResponse(): void {
        // The data already went with the message.
      }
    }
    made.set(base, copyQuery)
  }
  return copyQuery
}
