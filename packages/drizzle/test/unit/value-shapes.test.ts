import { geometry, halfvec, line, pgTable, point, text, vector } from 'drizzle-orm/pg-core'
import { describe, expect, test } from 'vitest'
import { shapeCheck } from '../../src/schema/value-shapes.ts'

const shapes = pgTable('shapes', {
  label: text('label'),
  at: point('at'),
  atXy: point('at_xy', { mode: 'xy' }),
  edge: line('edge'),
  edgeAbc: line('edge_abc', { mode: 'abc' }),
  place: geometry('place'),
  placeXy: geometry('place_xy', { mode: 'xy' }),
  embedding: vector('embedding', { dimensions: 3 }),
  half: halfvec('half', { dimensions: 2 }),
})

describe('the shape a geometric or vector column writes from, checked before Drizzle writes its text', () => {
  test.each([
    ['at', [1, 2], [[1], { x: 1, y: 2 }, '1,2', [1, '2']]],
    ['atXy', { x: 1, y: 2 }, [{ x: 1 }, [1, 2], null]],
    [
      'edge',
      [1, 2, 3],
      [
        [1, 2],
        [1, 2, 3, 4],
      ],
    ],
    [
      'edgeAbc',
      { a: 1, b: 0, c: -1 },
      [
        { a: 1, b: 0 },
        { a: 1, b: 0, c: '1' },
      ],
    ],
    ['place', [1, 2], [[1, 2, 3], { x: 1, y: 2 }]],
    ['placeXy', { x: 1, y: 2 }, [{ y: 2 }]],
    ['embedding', [1, 2, 3], [[1, 2], [1, 2, Number.NaN], [1, 2, Number.POSITIVE_INFINITY], '[1,2,3]']],
    ['half', [0.5, 1], [[0.5], ['0.5', 1]]],
  ] as const)('%s takes %j, refuses the wrong shapes', (name, good, bad) => {
    const check = shapeCheck(shapes[name as keyof typeof shapes._.columns])
    expect(check).toBeDefined()
    expect(() => check!(good)).not.toThrow()
    for (const value of bad) expect(() => check!(value), JSON.stringify(value)).toThrow(/^expected /)
  })

  test('a NaN or an infinity is a number a point takes (PostgreSQL stores them)', () => {
    expect(() => shapeCheck(shapes.at)!([Number.NaN, Number.POSITIVE_INFINITY])).not.toThrow()
  })

  test('other columns have no check', () => {
    expect(shapeCheck(shapes.label)).toBeUndefined()
  })
})
