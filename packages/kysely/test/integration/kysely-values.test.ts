import { isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { type ColumnType, type Generated, type JSONColumnType, sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

// Values as Kysely means them at create, upsert and assign (found by an outside probe): a string given
// to a json or jsonb column is JSON text (Kysely's `JSONColumnType` and kysely-codegen's `Json` insert
// one), which pipeflush stored as a JSON string value; and `undefined` (what `Insertable` allows for a
// generated or optional column) is left out, where the flush failed INVALID_VALUE. And `select(query)`
// ran an insert or a delete given to it, autocommitted, outside any flush.
const db = useTestDatabase()

interface DB {
  kv_grid: { id: Generated<number>; grid: string[][] }
  kv_profile: {
    id: Generated<number>
    handle: string
    prefs: JSONColumnType<{ theme: string }>
    extra: ColumnType<unknown, string | undefined, string>
    tag: string | null
    created_at: Generated<Date>
  }
}

beforeAll(async () => {
  await db.sql.unsafe(`create table kv_profile (
    id serial primary key, handle text not null unique, prefs jsonb not null, extra json,
    tag text default 'none', created_at timestamptz not null default '2020-01-01T00:00:00Z'
  );
  create table kv_grid (id serial primary key, grid text[][] not null);
  insert into kv_grid (grid) values ('{{a,b},{c,d}}'), ('{{a,b}}')`)
})

/** The stored row of `handle`: each json column's type and text as the server has them. */
async function stored(handle: string) {
  const [row] = await db.sql.unsafe(
    `select jsonb_typeof(prefs) as prefs_type, prefs::text as prefs, json_typeof(extra) as extra_type,
     extra::text as extra, tag, created_at from kv_profile where handle = $1`,
    [handle],
  )
  return row
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  const factoryOf = () => createEntityManagerFactory<DB>({ client: db.client(driver, { max: 2 }).client })

  test('create: JSON text is stored as the value it is, as Kysely stores it; undefined is left out', async () => {
    const factory = await factoryOf()
    const tag: string | undefined = undefined
    const { result } = await factory.run((em) =>
      em.create('kv_profile', {
        handle: `c-${driver}`,
        prefs: JSON.stringify({ theme: 'dark' }),
        extra: '"just text"',
        tag,
        created_at: undefined,
      }),
    )
    expect(result.prefs).toEqual({ theme: 'dark' })
    expect(result.prefs.theme).toBe('dark')
    expect(result.extra).toBe('just text')
    const ours = await stored(`c-${driver}`)
    expect(ours).toMatchObject({
      prefs_type: 'object',
      prefs: '{"theme": "dark"}',
      extra_type: 'string',
      extra: '"just text"',
      tag: 'none',
      created_at: new Date('2020-01-01T00:00:00Z'),
    })
    if (driver === 'pg') {
      // Kysely's own insert on node-postgres, the driver its JSONColumnType is written for, stores the
      // same (on postgres.js, whose serializer encodes a string given for jsonb again, it stores a
      // JSON string value: pipeflush stores the value on both drivers).
      const viaKysely = `k-${driver}`
      await factory.db
        .insertInto('kv_profile')
        .values({ handle: viaKysely, prefs: JSON.stringify({ theme: 'dark' }), extra: '"just text"' })
        .execute()
      const theirs = await stored(viaKysely)
      expect({ ...ours, created_at: null }).toEqual({ ...theirs, created_at: null })
    }
  })

  test('upsert and assign take JSON text too; assign leaves an undefined column as it is', async () => {
    const factory = await factoryOf()
    await factory.run((em) => {
      em.upsert(
        'kv_profile',
        { handle: `u-${driver}`, prefs: '{"theme":"light"}', tag: undefined },
        { conflict: ['handle'] },
      )
    })
    expect(await stored(`u-${driver}`)).toMatchObject({
      prefs_type: 'object',
      prefs: '{"theme": "light"}',
      tag: 'none',
    })
    await factory.run((em) => {
      em.upsert('kv_profile', { handle: `u-${driver}`, prefs: '{"theme":"blue"}' }, { conflict: ['handle'] })
    })
    expect(await stored(`u-${driver}`)).toMatchObject({ prefs_type: 'object', prefs: '{"theme": "blue"}' })
    const { report } = await factory.run(async (em) => {
      const [row] = await em.find('kv_profile', { handle: `u-${driver}` })
      em.assign(row!, { prefs: '{"theme":"red"}', tag: undefined, extra: '[1,2]' })
      expect(row!.prefs).toEqual({ theme: 'red' })
    })
    expect(report.updated).toBe(1)
    expect(await stored(`u-${driver}`)).toMatchObject({
      prefs_type: 'object',
      prefs: '{"theme": "red"}',
      extra_type: 'array',
      tag: 'none',
    })
  })

  test('text that is not JSON: INVALID_VALUE at the call, naming the column, not the text; nothing pending', async () => {
    const factory = await factoryOf()
    const em = factory.em()
    let error: unknown
    try {
      em.create('kv_profile', { handle: `bad-${driver}`, prefs: '{theme: secret-value}' })
    } catch (e) {
      error = e
    }
    expect(isPipeflushError(error) && error.code).toBe('INVALID_VALUE')
    expect(error).toMatchObject({ table: 'kv_profile', column: 'prefs' })
    expect((error as Error).message).toMatch(/prefs is a json column.*not JSON/)
    expect((error as Error).message).not.toMatch(/secret/)
    expect(em.pending).toMatchObject({ inserts: 0 })
    const [row] = await em.find('kv_profile', { handle: `c-${driver}` })
    expect(() => em.assign(row!, { extra: 'not json' })).toThrow(/extra is a json column/)
    expect(row!.extra).toBe('just text')
    const report = await em.flush()
    expect(report.statements).toBe(0)
  })

  test('select(query) refuses a query that writes, before sending it; a select with a CTE runs', async () => {
    const factory = await factoryOf()
    const em = factory.em()
    const [{ n: before }] = (await db.sql.unsafe('select count(*)::int as n from kv_profile')) as unknown as [
      { n: number },
    ]
    const writes = [
      factory.db.insertInto('kv_profile').values({ handle: `w-${driver}`, prefs: '{}' }),
      factory.db.deleteFrom('kv_profile'),
      factory.db.updateTable('kv_profile').set({ tag: 'x' }),
      factory.db
        .with('gone', (d) => d.deleteFrom('kv_profile').returning('id'))
        .selectFrom('gone')
        .select('id'),
    ]
    for (const query of writes) {
      const failure = await em.select(query as never).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isPipeflushError(failure) && failure.code).toBe('INVALID_STATE')
      expect((failure as Error).message).toMatch(/select\(query\): the query writes/)
    }
    const [{ n: after }] = (await db.sql.unsafe('select count(*)::int as n from kv_profile')) as unknown as [
      { n: number },
    ]
    expect(after).toBe(before)
    const rows = await em.select(
      factory.db
        .with('mine', (d) =>
          d.selectFrom('kv_profile').select('handle').where('handle', 'like', `%-${driver}`),
        )
        .selectFrom('mine')
        .select((eb) => eb.fn.countAll<string>().as('n')),
    )
    expect(Number(rows[0]?.n)).toBeGreaterThan(0)
  })

  test('a nested array given to a query is a multi-dimensional array, as Kysely sends it', async () => {
    const factory = await factoryOf()
    const em = factory.em()
    const grid = [
      ['a', 'b'],
      ['c', 'd'],
    ]
    const query = factory.db
      .selectFrom('kv_grid')
      .select(['id', sql<string[][]>`${grid}::text[][]`.as('echo')])
      .where('grid', '=', sql<string[][]>`${grid}::text[][]`)
    const theirs = await query.execute()
    expect(theirs.map((r) => r.echo)).toEqual([grid])
    expect(await em.select(query)).toEqual(theirs)
    // load(query) sends its parameters so too (entities hold one-dimensional arrays only: a profile).
    await factory.run((w) =>
      w.create('kv_profile', { handle: `g-${driver}`, prefs: JSON.stringify({ theme: 'grid' }) }),
    )
    const loaded = await em.load(
      factory.db
        .selectFrom('kv_profile')
        .selectAll()
        .where('handle', '=', `g-${driver}`)
        .where(sql`${grid}::text[][]`, '=', sql`'{{a,b},{c,d}}'::text[][]`),
    )
    expect(loaded.map((r) => r.handle)).toEqual([`g-${driver}`])
    // Integers, a null, a quote and a backslash inside: as the server reads them.
    const shapes = factory.db
      .selectFrom('kv_grid')
      .select(sql<string>`${[[1, null], [3, 4]]}::int[][]::text`.as('n'))
      .select(sql<string>`${[['say "hi"', 'x\\y']]}::text[][]::text`.as('t'))
      .select(sql<number>`array_ndims(${[[1], [2]]}::int[][])`.as('dims'))
      .limit(1)
    const read = await em.select(shapes)
    expect(read).toEqual([{ n: '{{1,NULL},{3,4}}', t: '{{"say \\"hi\\"","x\\\\y"}}', dims: 2 }])
    expect(read).toEqual(await shapes.execute())
  })
})
