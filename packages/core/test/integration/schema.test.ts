import { EntityManager, readSchema } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import pg from 'pg'
import { beforeAll, describe, expect, test } from 'vitest'
import { JIT_OFF } from '../../src/schema/read-schema.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create type mood as enum ('sad', 'ok', 'happy');
    create schema other;
    create table parent (a int, b text, primary key (a, b));
    create table child (id int generated always as identity primary key, pa int, pb text, m mood, tags text[],
      code varchar(5), doubled int generated always as (id * 2) stored,
      foreign key (pa, pb) references parent deferrable initially deferred, unique (code));
    create table other.thing (id uuid primary key, parent_a int not null, parent_b text not null,
      foreign key (parent_a, parent_b) references public.parent on delete set null);
    create table nokey (x int);
  `)
})

describe('readSchema', () => {
  test('reads columns, keys, foreign keys and uniques in two queries', async () => {
    const { sql, counter } = db.connect({ max: 1, proxied: false })
    await sql`select 1`
    counter.reset()
    const schema = await readSchema(sql, { schemas: ['public', 'other'] })
    expect(counter.read().roundTrips).toBeLessThanOrEqual(3) // 2 queries (+1 describe of the catalog query on a fresh connection)
    const parent = schema.tables.get('parent')!
    expect(parent.primaryKey).toEqual(['a', 'b'])
    const child = schema.tables.get('child')!
    const id = child.columnsByName.get('id')!
    expect(id).toMatchObject({
      type: 'int4',
      identity: 'always',
      hasDefault: true,
      sequence: 'public.child_id_seq',
    })
    expect(child.columnsByName.get('m')).toMatchObject({
      type: 'enum',
      enumLabels: ['sad', 'ok', 'happy'],
      sqlType: 'public.mood',
    })
    expect(child.columnsByName.get('tags')).toMatchObject({ type: 'text', isArray: true, sqlType: 'text[]' })
    expect(child.columnsByName.get('code')).toMatchObject({ type: 'varchar', maxLength: 5, nullable: true })
    expect(child.columnsByName.get('doubled')).toMatchObject({ generated: true })
    expect(child.foreignKeys).toEqual([
      {
        name: 'child_pa_pb_fkey',
        columns: ['pa', 'pb'],
        target: 'parent',
        targetColumns: ['a', 'b'],
        deferrable: true,
        initiallyDeferred: true,
        onDelete: 'no action',
      },
    ])
    expect(child.uniques).toEqual([{ name: 'child_code_key', columns: ['code'], nullsNotDistinct: false }])
    const thing = schema.tables.get('other.thing')!
    expect(thing.foreignKeys[0]).toMatchObject({ target: 'parent', onDelete: 'set null' })
    expect(schema.tables.get('nokey')?.primaryKey).toEqual([])
  })

  test('an entity manager refuses a table without primary key and a session with another DateStyle, clearly', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    const em = await EntityManager.connect(sql)
    expect(() => em.create('nokey', { x: 1 })).toThrowError(/nokey has no primary key/)
    const { sql: german } = db.connect({ max: 1, proxied: false, connection: { DateStyle: 'German' } })
    await expect(EntityManager.connect(german)).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining("postgres(url, { connection: { DateStyle: 'ISO, MDY' } })"),
    })
    await german.end()
    // On node-postgres, its own way to set it, which connects.
    const dmy = new pg.Pool({ connectionString: db.url, max: 1, options: '-c DateStyle=SQL,DMY' })
    const refused = await EntityManager.connect(dmy).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'INVALID_CONFIG' })
    const advice = /options: '(-c DateStyle=ISO,MDY)'/.exec((refused as Error).message)
    expect(advice, (refused as Error).message).not.toBeNull()
    await dmy.end()
    const iso = new pg.Pool({ connectionString: db.url, max: 1, options: advice![1] })
    await expect(EntityManager.connect(iso)).resolves.toBeDefined()
    await iso.end()
  })

  test('a session with array_nulls off is refused at connect, naming the way out, which connects', async () => {
    // Off, an unquoted NULL in an array literal is the text NULL: a flush would store 'NULL' in text
    // columns, silently.
    const { sql: off } = db.connect({ max: 1, proxied: false, connection: { array_nulls: 'off' } })
    const refused = await EntityManager.connect(off).catch((e: unknown) => e)
    await off.end()
    expect(refused).toMatchObject({ code: 'INVALID_CONFIG' })
    expect((refused as Error).message).toMatch(
      /needs array_nulls on .*postgres\(url, \{ connection: \{ array_nulls: true \} \}\)/,
    )
    const { sql: on } = db.connect({ max: 1, proxied: false, connection: { array_nulls: true } })
    await expect(EntityManager.connect(on)).resolves.toBeDefined()
    await on.end()
    const pgOff = new pg.Pool({ connectionString: db.url, max: 1, options: '-c array_nulls=off' })
    const pgRefused = await EntityManager.connect(pgOff).catch((e: unknown) => e)
    await pgOff.end()
    const advice = /options: '(-c array_nulls=on)'/.exec((pgRefused as Error).message)
    expect(advice, String(pgRefused)).not.toBeNull()
    const pgOn = new pg.Pool({ connectionString: db.url, max: 1, options: advice![1] })
    await expect(EntityManager.connect(pgOn)).resolves.toBeDefined()
    await pgOn.end()
  })

  test('a search path naming no schema that exists is refused at connect, naming it; schemas given connect', async () => {
    const empty = new pg.Pool({ connectionString: db.url, max: 1, options: '-c search_path=' })
    const refused = await EntityManager.connect(empty).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'INVALID_CONFIG' })
    expect((refused as Error).message).toContain('search path (empty) names no schema that exists')
    await expect(EntityManager.connect(empty, { schemas: ['public'] })).resolves.toBeDefined()
    await empty.end()
    const { sql: nowhere } = db.connect({
      max: 1,
      proxied: false,
      connection: { search_path: 'no_such_schema' },
    })
    const refusedToo = await EntityManager.connect(nowhere).catch((e: unknown) => e)
    await nowhere.end()
    expect((refusedToo as Error).message).toContain(
      'search path ("no_such_schema") names no schema that exists',
    )
  })

  test("the catalog read's JIT_OFF turns JIT off for the rest of its message only, whatever the driver", async () => {
    const [set, during] = await db.sql.unsafe(`${JIT_OFF};\nselect current_setting('jit') as jit`)
    expect([set, during]).toEqual([[{ set_config: 'off' }], [{ jit: 'off' }]])
    expect(await db.sql.unsafe("select current_setting('jit') as jit")).toEqual([{ jit: 'on' }])
    const pool = new pg.Pool({ connectionString: db.url, max: 1 })
    const answers = (await pool.query(
      `${JIT_OFF};\nselect current_setting('jit') as jit`,
    )) as unknown as pg.QueryResult[]
    expect(answers.map((a) => a.rows)).toEqual([[{ set_config: 'off' }], [{ jit: 'off' }]])
    expect((await pool.query("select current_setting('jit') as jit")).rows).toEqual([{ jit: 'on' }])
    await pool.end()
  })

  test('identity always, generated columns and enums are written correctly', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    const em = await EntityManager.connect(sql)
    em.create('parent', { a: 1, b: 'x' })
    const c = em.create('child', { pa: 1, pb: 'x', m: 'happy', tags: ['a', null, 'b"c'], code: 'abc' })
    expect(() => em.create('child', { doubled: 4 })).toThrowError(/generated/)
    await em.flush()
    const [row] =
      await db.sql`select id, doubled, m::text, tags::text as tags from child where id = ${c['id'] as number}`
    expect(row).toEqual({
      id: c['id'],
      doubled: (c['id'] as number) * 2,
      m: 'happy',
      tags: '{a,NULL,"b\\"c"}',
    })
  })
})

describe('readSchema: keys filled by a DEFAULT, partitions, views', () => {
  beforeAll(async () => {
    await db.sql.unsafe(`
      create schema shapes;
      create schema "Seq ""Home""";
      set search_path = shapes;
      create sequence plain_seq;
      create sequence "Seq ""Home""".":-) it's";
      create table by_default (id int default nextval('plain_seq'::regclass) primary key);
      create table by_text (id bigint default nextval('plain_seq'::text) primary key);
      create table by_text_quoted (id bigint default nextval(('"Seq ""Home""".":-) it''s"'::text)::regclass) primary key);
      create table by_regclass_quoted (id bigint default nextval('"Seq ""Home""".":-) it''s"') primary key);
      create table by_cast (id smallint default nextval('plain_seq')::smallint primary key);
      create table by_expression (id bigint default nextval('plain_seq') + 1000 primary key);
      create table by_text_missing (id bigint default nextval('no_such_seq'::text) primary key);
      create table owned (id bigserial primary key);
      create table by_identity (id int generated by default as identity primary key);
      create table keyed (day date, n int default nextval('plain_seq'), primary key (day, n));

      create table parent (id int primary key);
      create table other_parent (id int primary key);
      create table part (day date not null, id int not null, parent_id int, other_id int, loose_id int,
        primary key (day, id)) partition by range (day);
      create table part_a partition of part for values from ('2024-01-01') to ('2024-02-01');
      create table part_b partition of part for values from ('2024-02-01') to ('2024-03-01')
        partition by range (day);
      create table part_b1 partition of part_b for values from ('2024-02-01') to ('2024-02-15');
      create table part_b2 partition of part_b for values from ('2024-02-15') to ('2024-03-01');
      alter table part_a add constraint part_a_parent foreign key (parent_id) references parent on delete cascade;
      alter table part_b add constraint part_b_parent foreign key (parent_id) references parent
        deferrable initially deferred;
      alter table part_a add foreign key (other_id) references other_parent deferrable initially deferred;
      alter table part_b1 add foreign key (other_id) references other_parent deferrable initially deferred;
      alter table part_b2 add foreign key (other_id) references other_parent deferrable initially deferred;
      alter table part_a add foreign key (loose_id) references other_parent;
      create table empty_part (id int primary key, parent_id int) partition by range (id);
      create table to_part (id int primary key, day date, part_id int, foreign key (day, part_id) references part);
      create table to_leaf (id int primary key, day date, part_id int, foreign key (day, part_id) references part_a);

      create view names as select id, day from part;
      create materialized view counted as select count(*) as n from part;
      reset search_path;
    `)
  })

  test('a key column takes the sequence its DEFAULT is a bare nextval of, owned or not, however spelled', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    const schema = await readSchema(sql, { schemas: ['shapes'] })
    const sequenceOf = (table: string, column = 'id') =>
      schema.tables.get(`shapes.${table}`)?.columnsByName.get(column)?.sequence
    expect(sequenceOf('by_default')).toBe('shapes.plain_seq')
    // nextval('plain_seq'::text) resolves through the search path, as the server will: not from public.
    expect(sequenceOf('by_text')).toBeNull()
    expect(sequenceOf('by_text_quoted')).toBe(`"Seq ""Home""".":-) it's"`)
    expect(sequenceOf('by_regclass_quoted')).toBe(`"Seq ""Home""".":-) it's"`)
    expect(sequenceOf('by_cast')).toBe('shapes.plain_seq')
    expect(sequenceOf('owned')).toBe('shapes.owned_id_seq')
    expect(sequenceOf('by_identity')).toBe('shapes.by_identity_id_seq')
    expect(sequenceOf('keyed', 'n')).toBe('shapes.plain_seq')
    // Not a sequence's: an expression around nextval, a name that resolves to nothing.
    expect(sequenceOf('by_expression')).toBeNull()
    expect(sequenceOf('by_text_missing')).toBeNull()
    expect(schema.tables.get('shapes.by_expression')?.columnsByName.get('id')?.hasDefault).toBe(true)
    const { sql: other } = db.connect({ max: 1, proxied: false, connection: { search_path: 'shapes' } })
    const inPath = await readSchema(other)
    expect(inPath.tables.get('by_text')?.columnsByName.get('id')?.sequence).toBe('shapes.plain_seq')
  })

  test('a partitioned table has the foreign keys any leaf partition declares; keys to a partitioned table or a partition target the partitioned table', async () => {
    const { sql, counter } = db.connect({ max: 1, proxied: false })
    await sql`select 1`
    counter.reset()
    const schema = await readSchema(sql, { schemas: ['shapes'] })
    expect(counter.read().roundTrips).toBeLessThanOrEqual(3) // still 2 queries (+1 describe)
    const part = schema.tables.get('shapes.part')!
    // parent_id: on every leaf (part_a directly, part_b1 and part_b2 through part_b); deferred on one
    // only, so not deferred; cascade on one: cascade. other_id: on every leaf, deferred on each.
    // loose_id: on one leaf only, kept (a row may land in that leaf).
    expect(part.foreignKeys).toEqual([
      {
        name: 'part_a_loose_id_fkey',
        columns: ['loose_id'],
        target: 'shapes.other_parent',
        targetColumns: ['id'],
        deferrable: false,
        initiallyDeferred: false,
        onDelete: 'no action',
        aliases: ['part_a_loose_id_fkey'],
      },
      {
        name: 'part_a_other_id_fkey',
        columns: ['other_id'],
        target: 'shapes.other_parent',
        targetColumns: ['id'],
        deferrable: true,
        initiallyDeferred: true,
        onDelete: 'no action',
        aliases: ['part_a_other_id_fkey', 'part_b1_other_id_fkey', 'part_b2_other_id_fkey'],
      },
      {
        name: 'part_a_parent',
        columns: ['parent_id'],
        target: 'shapes.parent',
        targetColumns: ['id'],
        deferrable: false,
        initiallyDeferred: false,
        onDelete: 'cascade',
        aliases: ['part_a_parent', 'part_b_parent'],
      },
    ])
    expect(schema.tables.get('shapes.empty_part')?.foreignKeys).toEqual([])
    expect(schema.tables.get('shapes.to_part')?.foreignKeys).toMatchObject([
      { target: 'shapes.part', columns: ['day', 'part_id'], targetColumns: ['day', 'id'] },
    ])
    expect(schema.tables.get('shapes.to_leaf')?.foreignKeys).toMatchObject([
      { target: 'shapes.part', columns: ['day', 'part_id'], targetColumns: ['day', 'id'] },
    ])
    expect([...schema.tables.keys()].filter((k) => k.startsWith('shapes.part'))).toEqual(['shapes.part'])
    // The leaves, and part_b, partitioned in turn, lead to their partitioned table. (Bug, outside
    // probe shapes4: part_b was left out, and naming it said it was not in the schemas read.)
    expect(schema.partitionOf).toEqual(
      new Map([
        ['shapes.part_a', 'shapes.part'],
        ['shapes.part_b1', 'shapes.part'],
        ['shapes.part_b2', 'shapes.part'],
        ['shapes.part_b', 'shapes.part'],
      ]),
    )
  })

  test('a leaf partition named as a table is UNKNOWN_TABLE naming its partitioned table, before anything is sent', async () => {
    const { sql, counter } = db.connect({ max: 1, proxied: false })
    const em = await EntityManager.connect(sql, { schemas: ['shapes'] })
    counter.reset()
    const partition = {
      code: 'UNKNOWN_TABLE',
      table: 'shapes.part_a',
      message: expect.stringContaining('it is a partition of "shapes.part"'),
    }
    expect(() => em.create('shapes.part_a', { day: new Date('2024-01-02'), id: 1 })).toThrow(
      expect.objectContaining(partition),
    )
    await expect(em.find('shapes.part_a', { id: 1 })).rejects.toMatchObject(partition)
    // A partition partitioned in turn, as a leaf.
    await expect(em.find('shapes.part_b', { id: 1 })).rejects.toMatchObject({
      ...partition,
      table: 'shapes.part_b',
    })
    expect(counter.read().roundTrips).toBe(0)
    // A name that is nothing still lists the tables known.
    expect(() => em.create('shapes.part_z', { id: 1 })).toThrow(/Unknown table "shapes.part_z" \(known: /)
  })

  // The global form names the version column of every table with an integer column of that name: a
  // nullable one was skipped in silence, and concurrent updates of its table were lost.
  test('versionColumn by name: an integer NOT NULL column of each table, a text one left alone, a nullable one refused', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    await sql.unsafe(`
      create schema vers_ok;
      create table vers_ok.counted (id int primary key, version int not null default 1);
      create table vers_ok.release (id int primary key, version text);
      create schema vers_bad;
      create table vers_bad.loose (id int primary key, version int default 1);
    `)
    const ok = await readSchema(sql, { schemas: ['vers_ok'], versionColumn: 'version' })
    expect([
      ok.tables.get('vers_ok.counted')?.versionColumn,
      ok.tables.get('vers_ok.release')?.versionColumn,
    ]).toEqual(['version', null])
    const error = await readSchema(sql, { schemas: ['vers_bad'], versionColumn: 'version' }).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringMatching(/loose.*must be NOT NULL/),
    })
  })

  test('views and materialized views are read as read-only relations with their columns', async () => {
    const { sql } = db.connect({ max: 1, proxied: false })
    const schema = await readSchema(sql, { schemas: ['shapes'], versionColumn: { 'shapes.names': 'id' } })
    expect(schema.tables.get('shapes.names')).toMatchObject({
      kind: 'view',
      primaryKey: [],
      foreignKeys: [],
      versionColumn: null,
      copyable: false,
    })
    expect(schema.tables.get('shapes.names')?.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', 'int4'],
      ['day', 'date'],
    ])
    expect(schema.tables.get('shapes.counted')).toMatchObject({ kind: 'materialized view' })
    expect(schema.tables.get('shapes.counted')?.columns.map((c) => [c.name, c.type])).toEqual([['n', 'int8']])
  })
})
