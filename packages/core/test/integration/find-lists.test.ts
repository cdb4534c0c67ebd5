import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { connectOn, schemaOf } from './fixtures/schema-client.ts'

// A list in a condition means any of its values; a null among them means `is null` too, as `null`
// alone does (`= any` of a list holding a null never matches a null): the rows are those SQL's
// `= any(...) or ... is null` gives, in a find and in a relation's `$where`.
const db = useTestDatabase()

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf('lists', driver)
    await db.sql.unsafe(`
      create schema "${s}";
      create table "${s}".publisher (id int primary key, name text not null);
      create table "${s}".book (id int primary key, publisher_id int references "${s}".publisher, title text);
      insert into "${s}".publisher values (1, 'One'), (2, 'Two');
      insert into "${s}".book values (1, 1, 'a'), (2, 2, 'b'), (3, null, 'c'), (4, 1, null), (5, null, null);
      create table "${s}".award (id int primary key, publisher_id int not null references "${s}".publisher, name text not null);
      insert into "${s}".award values (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'x');
      create table "${s}".doc (id int primary key, publisher_id int references "${s}".publisher, body jsonb);
      insert into "${s}".doc values (1, 1, '[1, 2]'), (2, 1, '1'), (3, 1, '[]'), (4, 1, '2'), (5, 1, null),
        (6, 1, '[[1, 2]]'), (7, 1, '{"a": [1]}');
    `)
  }
})

const CASES = [
  [[1, null], 'publisher_id = 1 or publisher_id is null'],
  [[null], 'publisher_id is null'],
  [[null, null, 2], 'publisher_id = 2 or publisher_id is null'],
  [[2, 1], 'publisher_id in (1, 2)'],
  [[], 'false'],
] as const

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('an empty list in one $where, a value in the next: each reads its own parameter', async () => {
    const s = schemaOf('lists', driver)
    const { root, end } = await connectOn(db, driver, s)
    try {
      const awards = async (titles: unknown[]) =>
        (
          await root.fork().find(
            'publisher',
            {},
            {
              orderBy: { id: 'asc' },
              with: { books: { $where: { title: titles } }, awards: { $where: { name: 'x' } } },
            },
          )
        ).map((p) => (p['awards'] as { id: number }[]).map((a) => a.id))
      // The empty list first, then the same tree with values: its shape is not the empty list's.
      expect(await awards([])).toEqual([[1], [3]])
      expect(await awards(['a', 'b'])).toEqual([[1], [3]])
      expect(await awards([null])).toEqual([[1], [3]])
    } finally {
      await end()
    }
  })

  // A JSON array is a jsonb value (found by an outside probe: `[1, 2]` found the row holding 1).
  test.each([
    [[1, 2], [1]],
    [[], [3]],
    [[[1, 2]], [6]],
    [2, [4]],
    [{ a: [1] }, [7]],
  ] as const)(
    'on a jsonb column, %j is one value, compared whole: rows %j, in a find and a $where',
    async (body, ids) => {
      const s = schemaOf('lists', driver)
      const { root, end } = await connectOn(db, driver, s)
      try {
        const found = await root.fork().find('doc', { body }, { orderBy: { id: 'asc' } })
        expect(found.map((d) => d['id'])).toEqual(ids)
        const [publisher] = await root
          .fork()
          .find('publisher', { id: 1 }, { with: { docs: { $where: { body } } } })
        expect((publisher!['docs'] as { id: number }[]).map((d) => d.id).sort()).toEqual(ids)
      } finally {
        await end()
      }
    },
  )

  test.each(CASES)('find with %j: the rows of %s', async (list, sql) => {
    const s = schemaOf('lists', driver)
    const { root, end } = await connectOn(db, driver, s)
    try {
      const found = await root.fork().find('book', { publisher_id: [...list] }, { orderBy: { id: 'asc' } })
      const expected = await db.sql.unsafe(`select id from "${s}".book where ${sql} order by id`)
      expect(found.map((b) => b['id'])).toEqual(expected.map((r) => r['id']))
    } finally {
      await end()
    }
  })

  test('a list holding null in a text column and in a relation $where', async () => {
    const s = schemaOf('lists', driver)
    const { root, end } = await connectOn(db, driver, s)
    try {
      const em = root.fork()
      const books = await em.find('book', { title: ['a', null] }, { orderBy: { id: 'asc' } })
      expect(books.map((b) => b['id'])).toEqual([1, 4, 5])
      const [one] = await root
        .fork()
        .find('publisher', { id: 1 }, { with: { books: { $where: { title: [null, 'zzz'] } } } })
      expect((one!['books'] as { id: number }[]).map((b) => b.id)).toEqual([4])
      // The same tree with a list of the other kinds (no null, only nulls, a null among values): a
      // statement text of each kind, not the first one's again.
      for (const [titles, ids] of [
        [['a'], [1]],
        [[null], [4]],
        [
          ['a', null],
          [1, 4],
        ],
      ] as const) {
        const [p] = await root
          .fork()
          .find('publisher', { id: 1 }, { with: { books: { $where: { title: [...titles] } } } })
        expect((p!['books'] as { id: number }[]).map((b) => b.id).sort()).toEqual(ids)
      }
    } finally {
      await end()
    }
  })
})
