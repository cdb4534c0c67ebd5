import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { PostgresJsQuery } from '../../../src/drivers/postgres-js/client-types.ts'
import { feedCopies } from '../../../src/drivers/postgres-js/copy-feed.ts'

/** A query as postgres.js makes one: a promise with its own `resolve`. */
function query(): { query: PostgresJsQuery; settled: unknown[] } {
  const settled: unknown[] = []
  const q = Object.assign(Promise.resolve([]), {
    execute: () => q,
    state: null,
    resolve: (value: unknown) => {
      settled.push(value)
    },
  }) as unknown as PostgresJsQuery
  return { query: q, settled }
}

/** A stream like postgres.js's: records what is written, what ends it and whether destroying wrote. */
function copyStream() {
  const written: string[] = []
  const events: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString())
      callback()
    },
    final(callback) {
      events.push('CopyDone')
      callback()
    },
    destroy(error, callback) {
      events.push(`CopyFail ${error?.message ?? error}`)
      callback(error)
    },
  })
  return { stream, written, events }
}

/** A few turns of the event loop: the chunks are written one per turn. */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** A chunk of COPY data, as the flush makes them. */
const b = (text: string) => Buffer.from(text, 'utf8')

describe('feedCopies', () => {
  it('writes each COPY its data in order and ends it; other values settle the query', async () => {
    const { query: q, settled } = query()
    feedCopies(q, [[b('1\ta\n'), b('2\tb\n')], [b('3\tc\n')]])
    const first = copyStream()
    const second = copyStream()
    q.resolve(first.stream)
    q.resolve(second.stream)
    await turns()
    expect([first.written, second.written]).toEqual([['1\ta\n', '2\tb\n'], ['3\tc\n']])
    expect(settled).toEqual([])
    q.resolve(['results'])
    expect(settled).toEqual([['results']])
    // Finished streams are destroyed (autoDestroy) without a CopyFail.
    expect([first.events, second.events]).toEqual([['CopyDone'], ['CopyDone']])
  })

  it('a COPY without data gets CopyFail; an error on a stream is left to the query', async () => {
    const { query: q } = query()
    feedCopies(q, [])
    const extra = copyStream()
    q.resolve(extra.stream)
    await new Promise((resolve) => setImmediate(resolve))
    expect(extra.events).toEqual(['CopyFail pipeflush has no data for this COPY'])
    const { query: q2 } = query()
    feedCopies(q2, [[b('1\ta\n')]])
    const failing = copyStream()
    q2.resolve(failing.stream)
    failing.stream.destroy(new Error('the server left the COPY')) // no unhandled 'error' event
    await new Promise((resolve) => setImmediate(resolve))
    expect(failing.stream.destroyed).toBe(true)
    expect(failing.events.filter((e) => e.startsWith('CopyFail'))).toEqual([])
  })

  it('data that fails as it is made: the chunks made are written, then CopyFail with the reason', async () => {
    const { query: q, settled } = query()
    const chunks = function* () {
      yield b('1\ta\n')
      throw new Error('a value did not encode')
    }
    feedCopies(q, [{ [Symbol.iterator]: chunks }])
    const copy = copyStream()
    q.resolve(copy.stream)
    await turns()
    expect(copy.written).toEqual(['1\ta\n'])
    expect(copy.events).toEqual(['CopyFail a value did not encode'])
    expect(settled).toEqual([])
  })

  it('refuses a query without its own resolve (another postgres.js) before anything is sent', () => {
    const bare = Promise.resolve([]) as unknown as PostgresJsQuery
    expect(() => feedCopies(bare, [[b('x\n')]])).toThrow(/no own resolve/)
  })
})
