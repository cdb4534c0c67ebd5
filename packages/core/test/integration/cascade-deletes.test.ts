import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A delete whose ON DELETE CASCADE removes rows another deleted row references (author's delete
// removes its blogs and their posts; a comment references a post, without an action): the comment's
// delete goes first, whatever order the application removed them in, as two statements run one at a
// time in that order would commit. Deleted after the author, the comment's key would name a post
// the cascade removed, and the server would refuse the author's delete.

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table author (id int primary key);
    create table blog (id int primary key, author_id int not null references author on delete cascade);
    create table post (id int primary key, blog_id int not null references blog on delete cascade);
    create table comment (id int primary key, post_id int not null references post);
    create table flag (id int primary key, post_id int references post on delete set null);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each(modes)('%s', (mode) => {
    test.each([
      ['comment first', false],
      ['author first', true],
    ])(
      "a comment on a post the author's delete cascades to, removed with the author (%s)",
      async (_, authorFirst) => {
        const base = (TEST_DRIVERS.indexOf(driver) * 10 + modes.indexOf(mode)) * 10 + (authorFirst ? 1 : 0)
        await db.sql.unsafe(`
        insert into author values (${base}); insert into blog values (${base}, ${base});
        insert into post values (${base}, ${base}); insert into comment values (${base}, ${base});
        insert into flag values (${base}, ${base});`)
        const { client } = db.client(driver, { max: 2 })
        const root = await EntityManager.connect(client, { pipeline: mode })
        const em = root.fork()
        const [author, comment, flag] = await Promise.all([
          em.load('author', base),
          em.load('comment', base),
          em.load('flag', base),
        ])
        for (const entity of authorFirst ? [author, flag, comment] : [comment, flag, author])
          em.remove(entity)
        const plan = em
          .plan()
          .waves.flat()
          .map((s) => `${s.kind} ${s.table}`)
        // The flag's key is set to NULL by the cascade: its order does not matter.
        expect(plan.indexOf('delete comment')).toBeLessThan(plan.indexOf('delete author'))
        const report = await em.flush()
        expect(report.deleted).toBe(3)
        const [left] = await db.sql<{ n: number }[]>`
        select (select count(*) from author where id = ${base}) + (select count(*) from post where id = ${base})
          + (select count(*) from comment where id = ${base}) + (select count(*) from flag where id = ${base}) as n`
        expect(Number(left!.n)).toBe(0)
        expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
      },
    )
  })
})
