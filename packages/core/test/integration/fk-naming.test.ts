// In one message (burst, and a wave on postgres.js) the server does not say which statement a
// foreign-key violation is about: the flush tells it from the table and key the server names, and
// must name what `pipeline: 'off'` (one statement a message) names, in every shape a reviewer tried:
// composite keys, a self-referencing table, one name in two schemas, quoted names, an update
// rekeying a referenced row, a partitioned referenced table (its constraint's copies), a trigger
// removing the referenced row.
import { EntityManager, isPipeflushError, type PipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table cp (a int, b int, primary key (a, b));
    create table cother (a int, b int, primary key (a, b));
    create table cchild (id int primary key, a int not null, b int not null, foreign key (a, b) references cp);
    create table node (id int primary key, parent_id int references node);
    create table other (id int primary key);
    create schema sa; create schema sb;
    create table sa.item (id int primary key);
    create table sb.item (id int primary key);
    create table ref (id int primary key, item_id int not null references sb.item);
    create table "Post" ("Id" int primary key);
    create table "Note" ("Id" int primary key, "PostId" int not null references "Post");
    create table "Star" ("Id" int primary key, "PostId" int not null references "Post");
    create table pp (id int primary key) partition by range (id);
    create table pp1 partition of pp for values from (0) to (1000000000);
    create table pnote (id int primary key, pp_id int not null references pp);
    create table pstar (id int primary key, pp_id int not null references pp);
    create table audit (id int primary key);
    create table uq (id int primary key, code int unique not null);
    create table uqref (id int primary key, code int not null references uq (code));
    create table tpost (id int primary key);
    create table tstar (id int primary key, tpost_id int not null references tpost);
    create function audit_del() returns trigger language plpgsql as $$ begin delete from tpost where id = old.id; return old; end $$;
    create trigger audit_del after delete on audit for each row execute function audit_del();
  `)
})

let seq = 0

/**
 * Sets up rows (`setup`, keys from `b`), runs `work` in a unit of work of `mode` and flushes it: the
 * statement its foreign-key violation names, as `kind on table | table | keys` with `b` written `B`.
 */
async function attempt(
  driver: (typeof TEST_DRIVERS)[number],
  mode: PipelineMode,
  setup: (b: number) => string,
  work: (em: EntityManager, b: number) => Promise<void>,
): Promise<string> {
  const { client } = db.client(driver, { max: 2 })
  const root = await EntityManager.connect(client, { pipeline: mode, schemas: ['public', 'sa', 'sb'] })
  const b = 10_000 * ++seq
  await db.sql.unsafe(setup(b))
  const em = root.fork()
  await work(em, b)
  const error = await em.flush().then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isPipeflushError(error, 'CONSTRAINT_VIOLATION')) return `not a constraint violation: ${String(error)}`
  const pe = error as PipeflushError
  return `${pe.message.split(' violated')[0]} | ${pe.table} | ${JSON.stringify(pe.keys)}`.replaceAll(
    String(b),
    'B',
  )
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('burst and waves name the statement off names (which knows it), in every shape', async () => {
    const named = new Map<string, string[]>()
    const record = async (label: string, result: Promise<string>) => {
      const list = named.get(label) ?? []
      list.push(await result)
      named.set(label, list)
    }
    for (const mode of modes) {
      await record(
        'composite',
        attempt(
          driver,
          mode,
          (b) =>
            `insert into cp values (${b}, 1), (${b}, 2); insert into cother values (${b}, 2); insert into cchild values (${b}, ${b}, 2)`,
          async (em, b) => {
            em.remove(await em.load('cother', { a: b, b: 2 }))
            em.remove(await em.load('cp', { a: b, b: 2 }))
          },
        ),
      )
      await record(
        'self-ref',
        attempt(
          driver,
          mode,
          (b) =>
            `insert into node values (${b}, null), (${b + 1}, ${b}); insert into other values (${b}), (${b + 1})`,
          async (em, b) => {
            em.remove(await em.load('other', b))
            em.remove(await em.load('other', b + 1))
            em.remove(await em.load('node', b))
          },
        ),
      )
      await record(
        'two schemas',
        attempt(
          driver,
          mode,
          (b) =>
            `insert into sa.item values (${b}); insert into sb.item values (${b}); insert into ref values (${b}, ${b})`,
          async (em, b) => {
            em.remove(await em.load('sa.item', b))
            em.remove(await em.load('sb.item', b))
          },
        ),
      )
      await record(
        'mixed case',
        attempt(
          driver,
          mode,
          (b) =>
            `insert into "Post" values (${b}); insert into "Note" values (${b}, ${b}); insert into "Star" values (${b}, ${b})`,
          async (em, b) => {
            em.remove(await em.load('Note', b))
            em.remove(await em.load('Post', b))
          },
        ),
      )
      await record(
        'rekey update',
        attempt(
          driver,
          mode,
          (b) =>
            `insert into uq values (${b}, ${b}); insert into other values (${b}); insert into uqref values (${b}, ${b})`,
          async (em, b) => {
            em.remove(await em.load('other', b))
            const p = await em.load('uq', b)
            ;(p as Record<string, unknown>)['code'] = b + 5
          },
        ),
      )
      await record(
        'partitioned target',
        attempt(
          driver,
          mode,
          (b) =>
            `insert into pp values (${b}); insert into pnote values (${b}, ${b}); insert into pstar values (${b}, ${b})`,
          async (em, b) => {
            em.remove(await em.load('pnote', b))
            em.remove(await em.load('pp', b))
          },
        ),
      )
      await record(
        'trigger deletes target',
        attempt(
          driver,
          mode,
          (b) =>
            `insert into tpost values (${b}), (${b + 7}); insert into audit values (${b}); insert into tstar values (${b}, ${b})`,
          async (em, b) => {
            em.remove(await em.load('audit', b))
            em.remove(await em.load('tpost', b + 7))
          },
        ),
      )
    }
    for (const [label, [off, waves, burst]] of named) {
      expect(off, label).not.toMatch(/^not a constraint violation/)
      expect({ waves, burst }, label).toEqual({ waves: off, burst: off })
    }
  })
})
