import { describe, expect, it } from 'vitest'
import { isPipeflushError, type PipeflushError, serverMessage } from '../../../src/errors.ts'
import { fetchIds } from '../../../src/ids/fetch-ids.ts'
import { IdAllocator, type IdQuery } from '../../../src/ids/id-allocator.ts'

const UNNEST = /unnest\('\{([^}]*)\}'::text\[\], '\{([^}]*)\}'::int4\[\], '\{([^}]*)\}'::int4\[\]\)/

/**
 * One sequence `s` with `left` values left after `last`, answered as the server answers a
 * `fetchIdsSql` text: the count asked when that many are left, else the count needed, else none,
 * with what is left after. Every (count, needed) asked is recorded.
 */
function limited(last: number, left: number): { query: IdQuery; asked: [number, number][] } {
  const asked: [number, number][] = []
  const query: IdQuery = async (text) => {
    const m = UNNEST.exec(text)
    if (m === null) throw new Error(`not an id query: ${text}`)
    const [n, needed] = [Number(m[2]), Number(m[3])]
    asked.push([n, needed])
    const t = left >= n ? n : left >= needed ? needed : 0
    const first = last + 1
    last += t
    left -= t
    return [
      {
        seq: 's',
        rest: String(left),
        first: t === 0 ? null : String(first),
        count: t === 0 ? null : t,
        ids: null,
      },
    ]
  }
  return { query, asked }
}

describe('fetchIds near the end of a sequence', () => {
  it('takes only what the flush needs when fewer than a block are left', async () => {
    const ids = new IdAllocator({ blockSize: 50 })
    const seq = limited(100, 27)
    await fetchIds(seq.query, ids, new Map([['s', 3]]))
    expect(seq.asked).toEqual([[53, 3]])
    expect(ids.available('s')).toBe(3)
    expect(ids.leftIn('s')).toBe(24)
  })

  it('takes the last values when they are exactly what is needed', async () => {
    const ids = new IdAllocator()
    const seq = limited(100, 5)
    await fetchIds(seq.query, ids, new Map([['s', 5]]))
    expect(ids.take(new Map([['s', 5]])).get('s')).toEqual(['101', '102', '103', '104', '105'])
  })

  it('is SEQUENCE_EXHAUSTED after one fetch when fewer are left than needed, naming the sequence and its tables', async () => {
    const ids = new IdAllocator()
    const seq = limited(100, 5)
    const error = await fetchIds(seq.query, ids, new Map([['s', 6]]), () => ['color']).catch(
      (e: unknown) => e,
    )
    expect(isPipeflushError(error, 'SEQUENCE_EXHAUSTED')).toBe(true)
    expect((error as PipeflushError).table).toBe('color')
    expect((error as PipeflushError).message).toMatch(
      /^Sequence s \(the key of color\) has 5 values left, and 0 more/,
    )
    expect(seq.asked).toHaveLength(1)
    expect(ids.available('s')).toBe(0)
  })
})

describe('serverMessage of a sequence past its end', () => {
  it('keeps the sequence name (2200H quotes a name, not a value), and hides the values of other data exceptions', () => {
    const reached = 'nextval: reached maximum value of sequence "color_id_seq" (32767)'
    expect(serverMessage(reached, '2200H')).toBe(reached)
    expect(serverMessage('invalid input syntax for type integer: "4111"', '22P02')).toBe(
      'invalid input syntax for type integer: "(a value)"',
    )
  })
})
