import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// PostgreSQL's `=` on box and circle compares areas, and point and polygon have none: a find by a box
// gave every row whose box had the same area (found by an outside probe), and one by a point failed on
// the server. They are found by `~=` ("same as") now. path's `=` compares numbers of points and path
// has no other equality; json and xml have none: a condition on them is INVALID_VALUE, nothing sent.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create domain gf_box as box;
    create table gf_shape (id int primary key, b box, c circle, p point, g polygon, d gf_box,
      pa path, j json, x xml, bs box[]);
    insert into gf_shape values
      (1, '(2,2),(0,0)', '<(0,0),1>', '(1,1)', '((0,0),(1,1),(1,0))', '(2,2),(0,0)',
          '[(0,0),(1,1),(2,0)]', '{}', '<a/>', '{(1,1),(0,0)}'),
      (2, '(4,1),(0,0)', '<(50,50),1>', '(2,2)', '((5,5),(6,6),(6,5))', '(4,1),(0,0)',
          '[(9,9),(8,7),(100,0)]', '{}', '<a/>', '{(1,1),(0,0)}'),
      (3, '(1,1),(0,0)', '<(0,0),2>', '(3,3)', '((0,0),(2,2),(2,0))', '(1,1),(0,0)',
          '[(0,0),(1,1)]', '{}', '<a/>', '{(1,1),(0,0)}');
  `)
})

const found = [
  { column: 'b', one: '(2,2),(0,0)', two: '(1,1),(0,0)' },
  { column: 'c', one: '<(0,0),1>', two: '<(0,0),2>' },
  { column: 'p', one: '(1,1)', two: '(3,3)' },
  { column: 'g', one: '((0,0),(1,1),(1,0))', two: '((0,0),(2,2),(2,0))' },
  { column: 'd', one: '(2,2),(0,0)', two: '(1,1),(0,0)' },
] as const

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(found)(
    'a find by $column gives the rows holding that value only, one value and a list',
    async ({ column, one, two }) => {
      const { client } = db.client(driver, { max: 1 })
      const em = (await EntityManager.connect(client)).fork()
      const ids = (rows: readonly Record<string, unknown>[]) => rows.map((r) => r['id']).sort()
      expect(ids(await em.find('gf_shape', { [column]: one }))).toEqual([1])
      expect(ids(await em.find('gf_shape', { [column]: [one, two] }))).toEqual([1, 3])
      expect(ids(await em.find('gf_shape', { [column]: [null, two] }))).toEqual([3])
    },
  )

  test.each(['pa', 'j', 'x', 'bs'])(
    'a find by %s (no equality) is INVALID_VALUE naming the column, nothing sent; `null` is still found',
    async (column) => {
      const { client, counter } = db.client(driver, { max: 1 })
      const em = (await EntityManager.connect(client)).fork()
      const sample = (await db.sql.unsafe(`select ${column}::text as v from gf_shape where id = 1`))[0]!['v']
      const value = column === 'j' ? {} : column === 'bs' ? [sample] : sample
      for (const where of [{ [column]: value }, { [column]: [value] }]) {
        counter.reset()
        const error = await em.find('gf_shape', where).catch((e: unknown) => e)
        expect(isPipeflushError(error, 'INVALID_VALUE'), String(error)).toBe(true)
        expect(String(error)).toContain(`gf_shape.${column}`)
        expect(String(error)).toContain('rows cannot be found by')
        expect(counter.read().roundTrips, 'nothing sent').toBe(0)
      }
      expect(await em.find('gf_shape', { [column]: null })).toEqual([])
    },
  )
})
