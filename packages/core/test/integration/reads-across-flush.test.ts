import { type Entity, EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A read a unit of work started before its flush, answered after the flush committed (the read's
// batch on one connection of the pool, the flush on another): a row the flush deleted comes back as
// the database held it when the read ran. The unit of work deleted it: the read leaves it out, as
// it leaves out an entity removed and not flushed yet, and nothing of it is tracked again.

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table shelf (id int primary key, name text not null);
    create table note (id int primary key, shelf_id int not null references shelf, body text not null);
  `)
})

/** The batch's slow select: the reads of its tick are answered after it, about 300 ms later. */
const SLOW = { text: 'select pg_sleep(0.3)', params: [] }

/** Ids of the rows each test makes: its own shelf and notes, apart from the others'. */
let nextShelf = 0

/** A shelf with notes `ids` (the shelf's id is returned). */
async function shelfWith(ids: readonly number[]): Promise<number> {
  const shelf = ++nextShelf
  await db.sql.unsafe(`insert into shelf values (${shelf}, 'shelf ${shelf}')`)
  for (const id of ids) await db.sql.unsafe(`insert into note values (${id}, ${shelf}, 'note ${id}')`)
  return shelf
}

/** The ways a unit of work reads notes: each gives the notes it read of the shelf. */
const READS: Record<string, (em: EntityManager, shelf: number, ids: readonly number[]) => Promise<Entity[]>> =
  {
    find: (em, shelf) => em.find('note', { shelf_id: shelf }),
    'load by key': (em, _, ids) => Promise.all(ids.map((id) => em.load('note', id))),
    'load with a relation': async (em, shelf) =>
      (await em.load('shelf', shelf, { with: { notes: true } }))['notes'] as Entity[],
    loadRows: (em, shelf) =>
      em.loadRows('note', {
        text: 'select id::text as c0, shelf_id::text as c1, body as c2 from note where shelf_id = $1 order by id',
        params: [String(shelf)],
      }),
  }

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each([2, 4])('a cold pool of %i', (max) => {
    async function fork(): Promise<EntityManager> {
      return (await EntityManager.connect(db.client(driver, { max, proxied: false }).client)).fork()
    }

    test.each(Object.keys(READS))(
      '%s answered after the flush that deleted a row it reads leaves it out',
      async (how) => {
        const base = 1000 * ++nextShelf
        const ids = [base + 1, base + 2]
        const shelf = await shelfWith(ids)
        const em = await fork()
        // The kept note is not loaded yet: the read tracks it, and the shelf's relation holds it alone.
        const reading = Promise.all([READS[how]!(em, shelf, ids), em.select(SLOW)])
        await new Promise((r) => setTimeout(r, 50))
        // The doomed note is managed once the read is under way (a load of a managed one sends nothing).
        const doomed = em.merge('note', { id: ids[0], shelf_id: shelf, body: `note ${ids[0]}` })
        em.remove(doomed)
        const report = await em.flush()
        expect(report.deleted).toBe(1)
        const [rows] = await db.sql`select count(*)::int as n from note where id = ${ids[0]!}`
        expect(rows!['n']).toBe(0) // committed before the read's answer

        const [read] = await reading.catch((e: unknown) => [e])
        if (how === 'load by key') {
          // The deleted note's load fails as a load of a missing row does.
          expect(isPipeflushError(read) && read.code).toBe('NOT_FOUND')
        } else {
          expect((read as Entity[]).map((n) => n['id'])).toEqual([ids[1]])
        }
        const kept = await em.load('note', ids[1]!)
        const onShelf = (await em.load('shelf', shelf, { with: { notes: true } }))['notes'] as Entity[]
        expect(onShelf).toEqual([kept])
        const again = await em.load('note', ids[0]!).catch((e: unknown) => e)
        expect(isPipeflushError(again) && again.code).toBe('NOT_FOUND')
        expect(em.plan().waves.flat()).toEqual([]) // nothing to write: no ghost to update
      },
    )

    test('a read started after that flush takes the row another client inserted again under the key', async () => {
      const base = 1000 * ++nextShelf
      const ids = [base + 1]
      const shelf = await shelfWith(ids)
      const em = await fork()
      const doomed = await em.load('note', ids[0]!)
      // A read under way across the flush: the deleted row is noted while it is.
      const before = Promise.all([em.find('note', { shelf_id: shelf }), em.select(SLOW)])
      await new Promise((r) => setTimeout(r, 50))
      em.remove(doomed)
      await em.flush()
      await db.sql.unsafe(`insert into note values (${ids[0]}, ${shelf}, 'again')`)
      // Started while the earlier read is under way (so the deleted row is still noted), after the commit.
      const after = await em.load('note', ids[0]!)
      expect(after['body']).toBe('again')
      const [earlier] = await before
      expect(earlier).toEqual([]) // it read the row the flush deleted
    })
  })
})
