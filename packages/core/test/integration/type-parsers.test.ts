import { EntityManager } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import pg from 'pg'
import { beforeAll, expect, test } from 'vitest'

// An application's own node-postgres type parsers (its pool's `types`, or `pg.types.setTypeParser`)
// change what the driver gives for every column of a type: pipeflush's own queries (the id fetch,
// the pooler check) and its reads do not depend on them.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table tp_author (id serial primary key, name text not null, born int4, rank int8, score numeric, ok bool);
    create table tp_book (id bigserial primary key, author_id int4 not null references tp_author, title text not null);
  `)
})

/** A parser for each of these types that no code reading numbers or booleans could take for one. */
const ODD = new Set([16, 20, 21, 23, 26, 700, 701, 1700])
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    ODD.has(oid) ? (text: string) => `parsed:${text}` : pg.types.getTypeParser(oid, format),
}

test('ids are fetched, rows written and read back whatever the pool parses numbers and booleans into', async () => {
  const pool = new pg.Pool({ connectionString: db.url, max: 2, pipeline: true, types } as pg.PoolConfig)
  try {
    // The pooler check too (`prepare` asks whether a pooler sits in between).
    const root = await EntityManager.connect(pool, { prefetchIds: false, prepare: true })
    const em = root.fork()
    const ada = em.create('tp_author', { name: 'Ada', born: 1815, rank: 1n, score: '9.5', ok: true })
    for (const title of ['Notes', 'Letters', 'Sketches']) em.create('tp_book', { author_id: ada, title })
    const report = await em.flush()
    expect(report.idFetch).toBe(true)
    expect(typeof ada['id']).toBe('number')
    const fresh = root.fork()
    const author = await fresh.load('tp_author', ada['id'], { with: { tp_books: true } })
    expect(author).toMatchObject({ name: 'Ada', born: 1815, rank: '1', score: '9.5', ok: true })
    expect((author['tp_books'] as { title: string }[]).map((b) => b.title).sort()).toEqual([
      'Letters',
      'Notes',
      'Sketches',
    ])
    const [stored] = await db.sql.unsafe('select count(*)::int as n from tp_book where author_id = $1', [
      ada['id'] as number,
    ])
    expect(stored!['n']).toBe(3)
  } finally {
    await pool.end()
  }
})
