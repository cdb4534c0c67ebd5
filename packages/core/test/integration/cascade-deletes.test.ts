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
    create table pin_author (id int primary key, pinned_id int not null);
    create table pin_post (id int primary key, author_id int not null references pin_author on delete cascade);
    create table pin_comment (id int primary key, post_id int not null references pin_post on delete cascade);
    alter table pin_author add foreign key (pinned_id) references pin_comment deferrable initially immediate;
    create table h_author (id int primary key, email text not null unique);
    create table h_post (id int primary key, author_id int not null references h_author on delete cascade);
    create table h_comment (id int primary key, post_id int not null references h_post on delete cascade);
    create table h_flag (id int primary key, post_id int references h_post, comment_id int references h_comment);
    create table f_team (id int primary key);
    create table f_role (id int primary key);
    create table f_member (id int primary key, team_id int not null references f_team on delete cascade,
      role_id int not null references f_role);
    create table f_grant (id int primary key, team_id int not null references f_team on delete cascade,
      role_id int not null references f_role on delete restrict);
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

  // A team and a role removed together, a membership (not loaded) of the team holding the role: the
  // team's delete takes the membership with it, which frees the role; the role first would be refused
  // (its name sorts first: the order of the tables' names decided it before). NO ACTION and RESTRICT.
  test.each(modes)(
    '%s: a delete whose cascade removes the rows holding another deleted row goes first',
    async (mode) => {
      const base = (TEST_DRIVERS.indexOf(driver) * 10 + modes.indexOf(mode)) * 10 + 7000
      await db.sql.unsafe(`
      insert into f_team values (${base}); insert into f_role values (${base}), (${base + 1});
      insert into f_member values (${base}, ${base}, ${base}); insert into f_grant values (${base}, ${base}, ${base + 1});`)
      const { client } = db.client(driver, { max: 2 })
      const em = (await EntityManager.connect(client, { pipeline: mode })).fork()
      const [team, role, other] = await Promise.all([
        em.load('f_team', base),
        em.load('f_role', base),
        em.load('f_role', base + 1),
      ])
      em.remove(role)
      em.remove(other)
      em.remove(team)
      const report = await em.flush()
      expect(report.deleted).toBe(3)
      const [left] = await db.sql<{ n: number }[]>`
      select (select count(*) from f_team where id = ${base}) + (select count(*) from f_role where id in (${base}, ${base + 1}))
        + (select count(*) from f_member where id = ${base}) + (select count(*) from f_grant where id = ${base}) as n`
      expect(Number(left!.n)).toBe(0)
    },
  )

  // Whether the deleted rows reference rows a cascade reaches is not known: that order is kept only
  // where it contradicts no other. An author's pinned comment (NOT NULL) is under another author's
  // post: the author goes first, as before; a freed email taken by a new author keeps its order.
  describe.each(modes)('%s, an order the cascade does not need', (mode) => {
    const base = (TEST_DRIVERS.indexOf(driver) * 10 + modes.indexOf(mode)) * 100

    async function unit() {
      const { client } = db.client(driver, { max: 2 })
      return (await EntityManager.connect(client, { pipeline: mode })).fork()
    }

    test("an author and a comment under another author's post, which the author pins", async () => {
      const [a, b] = [base + 1, base + 9]
      await db.sql.begin((sql) =>
        sql.unsafe(`
          set constraints all deferred;
          insert into pin_author values (${a}, ${base + 70}), (${b}, ${base + 71});
          insert into pin_post values (${a}, ${a}), (${b}, ${b});
          insert into pin_comment values (${base + 70}, ${b}), (${base + 71}, ${b});`),
      )
      const em = await unit()
      const [author, comment] = await Promise.all([
        em.load('pin_author', a),
        em.load('pin_comment', base + 70),
      ])
      em.remove(author)
      em.remove(comment)
      expect((await em.flush()).deleted).toBe(2)
    })

    test('a removed author whose email a new author takes, beside a comment removed elsewhere', async () => {
      const [a, b] = [base + 1, base + 9]
      await db.sql.unsafe(`
        insert into h_author values (${a}, 'a${base}@x'), (${b}, 'z${base}@x');
        insert into h_post values (${a}, ${a}), (${b}, ${b});
        insert into h_comment values (${base + 70}, ${b}), (${base + 71}, ${b});
        insert into h_flag values (${base}, ${b}, ${base + 70});`)
      const em = await unit()
      const [author, comment, flag] = await Promise.all([
        em.load('h_author', a),
        em.load('h_comment', base + 70),
        em.load('h_flag', base),
      ])
      em.remove(author)
      const fresh = em.create('h_author', { id: base + 2, email: `a${base}@x` })
      flag['post_id'] = em.create('h_post', { id: base + 20, author_id: fresh })
      flag['comment_id'] = base + 71
      em.remove(comment)
      const report = await em.flush()
      expect([report.inserted, report.deleted]).toEqual([2, 2])
    })
  })
})
