import { EntityManager } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, expect, test } from 'vitest'
import { PREPARED_PER_CONNECTION } from '../../src/drivers/pg/pg-adapter.ts'

// On a pipelining pg pool, statements go named: the server prepares each text once per connection and
// keeps it for the session's life. Texts that never repeat (a page's size is written in a read's
// text; an application's own selects) would grow the session's memory without bound: a connection
// prepares at most PREPARED_PER_CONNECTION of them, and sends the texts past those unnamed. A page's
// offset is a parameter: every page of one size is one text, prepared once.
const db = useTestDatabase()
const ROWS = 40

beforeAll(async () => {
  await db.sql.unsafe(`
    create table page_row (id int primary key, n int not null);
    insert into page_row select i, i * 10 from generate_series(1, ${ROWS}) i;
  `)
})

const PREPARED = { text: 'select statement from pg_prepared_statements', params: [] }

test('pg: a connection prepares at most PREPARED_PER_CONNECTION statements; later texts go unnamed, the ones prepared stay named', async () => {
  const { client, counter, end } = db.client('pg', { max: 1 })
  const root = await EntityManager.connect(client)
  try {
    const page = (size: number) => root.fork().find('page_row', {}, { orderBy: { id: 'asc' }, limit: size })
    const ids = (size: number) => Array.from({ length: Math.min(size, ROWS) }, (_, i) => i + 1)
    expect((await page(1)).map((r) => r['id'])).toEqual([1])
    const first = (await root.fork().select(PREPARED)).map((r) => String(r['statement']))
    expect(first.length).toBe(2) // the first page's read and this one
    const sizes = PREPARED_PER_CONNECTION + 60
    for (let size = 2; size <= sizes + 1; size++)
      expect((await page(size)).map((r) => r['id'])).toEqual(ids(size))
    const after = (await root.fork().select(PREPARED)).map((r) => String(r['statement']))
    expect(after.length).toBe(PREPARED_PER_CONNECTION)
    // The ones prepared first are still there, and a read of one is still one round trip, named.
    for (const text of first) expect(after).toContain(text)
    counter.reset()
    expect((await page(1)).map((r) => r['n'])).toEqual([10])
    expect(counter.read().roundTrips).toBe(1)
    // A text past the cap reads right on each send (parsed each time), repeated too.
    for (let i = 0; i < 3; i++) expect((await page(sizes + 5)).length).toBe(ROWS)
    expect((await page(ROWS - 1)).map((r) => r['id'])).toEqual(ids(ROWS - 1))
  } finally {
    await end()
  }
})

test.each(['pg', 'postgres.js'] as const)(
  '%s: every page of one size is one text: the offset is a parameter, one statement prepared for all pages',
  async (driver) => {
    const { client, end } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    try {
      const page = (offset: number) =>
        root.fork().find('page_row', {}, { orderBy: { id: 'asc' }, limit: 2, offset })
      for (let offset = 0; offset <= ROWS; offset++) {
        const rows = await page(offset)
        const expected = [offset + 1, offset + 2].filter((id) => id <= ROWS)
        expect(rows.map((r) => r['id'])).toEqual(expected)
      }
      if (driver === 'pg') {
        const prepared = (await root.fork().select(PREPARED)).map((r) => String(r['statement']))
        const pages = prepared.filter((text) => text.includes('page_row'))
        expect(pages.length).toBe(1)
        expect(pages[0]).toMatch(/ offset \$1::int8$/)
      }
    } finally {
      await end()
    }
  },
)
