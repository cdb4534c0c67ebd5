import { EntityManager, readSchema } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

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
    expect(child.uniques).toEqual([{ name: 'child_code_key', columns: ['code'] }])
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
      message: expect.stringMatching(/DateStyle/),
    })
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
