import { describe, expect, it } from 'vitest'
import { IdQueue, runTexts } from '../../../src/ids/id-runs.ts'

describe('IdQueue: free ids as runs', () => {
  it('gives consecutive ids as parts of their run, in order, across runs', () => {
    const q = new IdQueue()
    q.push({ first: 10, count: 3 })
    q.push({ texts: ['20', '25', '30', '35'] })
    q.push({ first: 100, count: 0 }) // nothing: not kept
    expect(q.size).toBe(7)
    expect(q.take(2)).toEqual([{ first: 10, count: 2 }])
    expect(q.take(3)).toEqual([{ first: 12, count: 1 }, { texts: ['20', '25'] }])
    expect(q.size).toBe(2)
    expect(runTexts(q.take(5))).toEqual(['30', '35']) // at most what is free
    expect(q.size).toBe(0)
    expect(q.take(1)).toEqual([])
  })

  it('gives a whole run as it is, and the texts left once half of them are given', () => {
    const q = new IdQueue()
    const run = { first: 1, count: 4 }
    q.push(run)
    expect(q.take(4)[0]).toBe(run)
    q.push({ texts: ['1', '2', '3', '4', '5'] })
    expect(q.take(1)).toEqual([{ texts: ['1'] }])
    expect(q.take(2)).toEqual([{ texts: ['2', '3'] }])
    expect(q.take(2)).toEqual([{ texts: ['4', '5'] }])
  })
})

describe('IdQueue.takeOne: ids one at a time', () => {
  it('gives numbers or texts as asked, across runs, then undefined', () => {
    const q = new IdQueue()
    for (const run of [{ first: 9, count: 2 }, { texts: ['9007199254740993'] }, { first: 4, count: 1 }])
      q.push(run)
    expect([q.takeOne(false), q.takeOne(true), q.takeOne(true), q.takeOne(false), q.takeOne(false)]).toEqual([
      9,
      '10',
      '9007199254740993',
      4,
      undefined,
    ])
    expect(q.size).toBe(0)
  })

  it('takes from where take left off, and take from where it did', () => {
    const q = new IdQueue()
    q.push({ first: 1, count: 3 })
    q.push({ texts: ['7', '8', '9', '10', '11'] })
    expect(q.take(1)).toEqual([{ first: 1, count: 1 }])
    expect([q.takeOne(false), q.takeOne(false), q.takeOne(true)]).toEqual([2, 3, '7'])
    expect(q.size).toBe(4)
    // Half of the texts given: the rest is kept alone, the next ids unchanged.
    expect(q.takeOne(true)).toBe('8')
    expect(q.take(2)).toEqual([{ texts: ['9', '10'] }])
    expect([q.takeOne(false), q.takeOne(false)]).toEqual([11, undefined])
  })
})
