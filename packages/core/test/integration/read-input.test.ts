import { EntityManager, type ReadStatement } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { rentalDdl } from './fixtures/rental-schema.ts'
import { schemaOf } from './fixtures/schema-client.ts'

// What the application gives a read (its own SQL, its parameters, a key, a condition) is checked
// before anything is sent; a bad one fails alone, with a message that says what and where, on both
// drivers alike, and the connection stays.
const db = useTestDatabase()
const drivers: readonly DriverName[] = TEST_DRIVERS

beforeAll(async () => {
  for (const driver of drivers) {
    const schema = schemaOf('ri', driver)
    await db.sql.unsafe(rentalDdl(schema))
    await db.sql.unsafe(`
      set search_path = "${schema}";
      insert into actor (actor_id, first_name, last_name) values (12, 'Ada', 'Byron'), (30, 'Mary', 'Smith');
      reset search_path;
    `)
  }
})

async function setup(driver: DriverName) {
  const schema = schemaOf('ri', driver)
  const c = db.client(driver, {
    max: 1,
    postgresJs: { connection: { search_path: schema } },
    pg: { options: `-c search_path=${schema}` },
  })
  const root = await EntityManager.connect(c.client)
  return { ...c, root }
}

const PID: ReadStatement = { text: 'select pg_backend_pid()::text as pid', params: [] }

/** Every column of actor as text, aliased c0... in table order. */
const ACTOR_COLUMNS =
  'actor_id::text as c0, first_name::text as c1, last_name::text as c2, last_update::text as c3'

describe.each(drivers)('%s', (driver) => {
  test('a select whose parameters do not match its text fails alone, before anything is sent; the batch and the connection are fine', async () => {
    const { root, counter } = await setup(driver)
    const [{ pid }] = (await root.fork().select(PID)) as [{ pid: string }]
    const cases: readonly { statement: ReadStatement; message: RegExp; tracked: boolean }[] = [
      {
        statement: { text: 'select $1::int as x', params: [] },
        message: /select: the text uses \$1 but 0 parameters were given/,
        tracked: false,
      },
      {
        statement: { text: 'select $1::int as x', params: ['1', '2'] },
        message: /uses \$1 but 2 parameters were given/,
        tracked: false,
      },
      {
        statement: { text: 'select 1 as x', params: ['1'] },
        message: /uses no parameters but 1 parameter was given/,
        tracked: false,
      },
      {
        statement: { text: 'select $1::int as x, $3::int as y', params: ['1', '2', '3'] },
        message: /uses \$1\.\.\$3 but does not use \$2/,
        tracked: false,
      },
      {
        statement: { text: `select ${ACTOR_COLUMNS} from actor where actor_id = $1::int`, params: [] },
        message: /loadRows\(actor\): the text uses \$1 but 0 parameters were given/,
        tracked: true,
      },
    ]
    for (const { statement, message, tracked } of cases) {
      const em = root.fork()
      counter.reset()
      const [bad, actor, withTree] = await Promise.allSettled([
        tracked ? em.loadRows('actor', statement) : em.select(statement),
        em.load('actor', 12),
        tracked ? em.loadRows('actor', statement, { with: { film_actors: true } }) : em.select(statement),
      ])
      expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'INVALID_VALUE' } })
      expect((bad as PromiseRejectedResult).reason.message).toMatch(message)
      expect((bad as PromiseRejectedResult).reason.message).toContain('Nothing was sent')
      expect(withTree).toMatchObject({ status: 'rejected', reason: { code: 'INVALID_VALUE' } })
      expect(actor).toMatchObject({ status: 'fulfilled', value: { actor_id: 12, first_name: 'Ada' } })
      // Only the load went: one round trip, on the connection the pool had.
      expect(counter.read().roundTrips).toBe(1)
      counter.reset()
      expect(await em.select(PID)).toEqual([{ pid }])
      expect(counter.read().roundTrips).toBe(1)
    }
    // What the server would take the same way: the text's parameters in quotes or comments are none.
    const em = root.fork()
    const quoted = await em.select({
      text: `select '$2' as a, "x$3" as b, $1::text as c, $$ $4 $$ as d, $q$ $5 $q$ as e, E'\\' $6' as f /* $7 /* $8 */ */ -- $9
        from (select 1 as "x$3") as t`,
      params: ['one'],
    })
    expect(quoted).toEqual([{ a: '$2', b: 1, c: 'one', d: ' $4 ', e: ' $5 ', f: "' $6" }])
  })

  test('a parameter is a text or null: anything else is refused before anything is sent, on both drivers alike', async () => {
    const { root, counter } = await setup(driver)
    for (const given of [5, 5n, true, new Date(0), { a: 1 }, ['1'], undefined]) {
      const em = root.fork()
      counter.reset()
      const [bad, actor] = await Promise.allSettled([
        em.select({ text: 'select $1::text as x', params: [given as never] }),
        em.load('actor', 12),
      ])
      expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'INVALID_VALUE' } })
      expect((bad as PromiseRejectedResult).reason.message).toMatch(
        /params\[0\] must be a text or null, not /,
      )
      expect(actor).toMatchObject({ status: 'fulfilled' })
      expect(counter.read().roundTrips).toBe(1)
    }
    const em = root.fork()
    expect(await em.select({ text: 'select $1::int as x, $2::text as y', params: ['5', null] })).toEqual([
      { x: 5, y: null },
    ])
    // Without params: a text without parameters.
    expect(await em.select({ text: 'select 5 as x' } as ReadStatement)).toEqual([{ x: 5 }])
    await expect(em.select({ text: 7, params: [] } as never)).rejects.toMatchObject({ code: 'INVALID_VALUE' })
  })

  // pg sent it, and the server refused it (22021): a round trip, and the whole batch sent again.
  test('a parameter or text no server text can hold (a NUL, a lone surrogate): refused before anything is sent', async () => {
    const { root, counter } = await setup(driver)
    for (const statement of [
      { text: 'select $1::text as x', params: ['a\u0000b'] },
      { text: 'select $1::text as x', params: ['a\ud800b'] },
      { text: "select 'a\u0000b' as x", params: [] },
    ]) {
      const em = root.fork()
      counter.reset()
      const [bad, actor] = await Promise.allSettled([em.select(statement), em.load('actor', 12)])
      expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'INVALID_VALUE' } })
      expect((bad as PromiseRejectedResult).reason.message).toMatch(/NUL|surrogate/)
      expect(actor).toMatchObject({ status: 'fulfilled' })
      expect(counter.read().roundTrips).toBe(1)
    }
  })

  test('loadRows whose select lacks columns of the table: INVALID_VALUE naming them, nothing tracked', async () => {
    const { root } = await setup(driver)
    const em = root.fork()
    const short = { text: 'select actor_id::text as c0 from actor where actor_id = 30', params: [] }
    const [plain, tree, fine] = await Promise.allSettled([
      em.loadRows('actor', short),
      em.loadRows('actor', short, { with: { film_actors: true } }),
      em.loadRows('actor', {
        text: `select ${ACTOR_COLUMNS} from actor where actor_id = 12`,
        params: [],
      }),
    ])
    for (const failed of [plain, tree]) {
      expect(failed).toMatchObject({ status: 'rejected', reason: { code: 'INVALID_VALUE', table: 'actor' } })
      const { message } = (failed as PromiseRejectedResult).reason as Error
      expect(message).toContain('c1 (first_name), c2 (last_name), c3 (last_update)')
    }
    expect(fine).toMatchObject({ status: 'fulfilled', value: [{ actor_id: 12 }] })
    // Nothing of actor 30 was tracked: a load reads it, whole.
    expect(await em.load('actor', 30)).toMatchObject({ actor_id: 30, first_name: 'Mary', last_name: 'Smith' })
    // Columns selected by other names are missing too.
    await expect(
      em.loadRows('actor', {
        text: 'select actor_id, first_name, last_name, last_update from actor',
        params: [],
      }),
    ).rejects.toMatchObject({ code: 'INVALID_VALUE' })
    // No rows: nothing to track, nothing to check.
    expect(await em.loadRows('actor', { text: `${short.text} and false`, params: [] })).toEqual([])
  })

  test('a key or condition of the wrong type names what it is: the key given to load, the find condition', async () => {
    const { root } = await setup(driver)
    const em = root.fork()
    for (const key of ['1', 1n]) {
      const e = await em.load('actor', key).catch((x: Error) => x)
      expect(e).toMatchObject({ code: 'INVALID_VALUE', table: 'actor', column: 'actor_id' })
      expect((e as Error).message).toMatch(/^actor\.actor_id \(the key given to load\): expected a number/)
      const locked = await em.load('actor', key, { with: { film_actors: true } }).catch((x: Error) => x)
      expect((locked as Error).message).toMatch(/^actor\.actor_id \(the key given to load\): /)
    }
    for (const where of [{ actor_id: '1' }, { actor_id: ['1'] }, { first_name: 7 }]) {
      const e = await em.find('actor', where).catch((x: Error) => x)
      expect(e).toMatchObject({ code: 'INVALID_VALUE', table: 'actor' })
      expect((e as Error).message).toMatch(/^actor\.\w+ \(the find condition\): /)
    }
    const nested = await em
      .find('film', {}, { with: { film_actors: { $where: { actor_id: '1' } } } })
      .catch((x: Error) => x)
    expect((nested as Error).message).toMatch(/^film_actor\.actor_id \(a \$where condition\): /)
  })

  // A misspelled option would be dropped without a word: a read without its lock, an upsert that
  // overwrites every column given instead of none.
  test('an option a read or an upsert does not take is refused by name, before anything is sent', async () => {
    const { root, counter } = await setup(driver)
    const em = root.fork()
    counter.reset()
    const statement: ReadStatement = { text: `select ${ACTOR_COLUMNS} from actor`, params: [] }
    for (const [read, message] of [
      [
        () => em.find('actor', {}, { limt: 1 } as never),
        'find(actor): unknown option "limt"; the options are with, lock, orderBy, limit, offset.',
      ],
      [
        () => em.load('actor', 12, { lok: 'update' } as never),
        'load(actor): unknown option "lok"; the options are with, lock.',
      ],
      [
        () => em.loadRows('actor', statement, { orderBy: 'actor_id' } as never),
        'loadRows(actor): unknown option "orderBy"; the options are with, lock.',
      ],
      [
        () => em.find('actor', {}, null as never),
        'find(actor): the options must be an object of named values, not null.',
      ],
    ] as const) {
      const e = await read().catch((x: Error) => x)
      expect(e, message).toMatchObject({ code: 'INVALID_VALUE' })
      expect((e as Error).message).toContain(message)
    }
    const upsert = (() => {
      try {
        em.upsert('actor', { actor_id: 12, first_name: 'Ada', last_name: 'B' }, {
          conflict: ['actor_id'],
          updates: [],
        } as never)
      } catch (e) {
        return e as Error
      }
      return undefined
    })()
    expect(upsert).toMatchObject({ code: 'INVALID_CONFIG', table: 'actor' })
    expect(upsert?.message).toContain(
      'upsert(actor): unknown option "updates"; the options are conflict, update.',
    )
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    expect(counter.read().roundTrips).toBe(0)
    // Spelled right, the same reads run.
    expect(await em.find('actor', {}, { limit: 1 })).toHaveLength(1)
  })

  test('a removed entity in a find condition stands for its key (its rows found to remove them too); a write may not refer to it', async () => {
    const { root, counter } = await setup(driver)
    const em = root.fork()
    const actor = await em.load('actor', 30)
    em.remove(actor)
    counter.reset()
    const [held, viaWith] = await Promise.all([
      em.find('film_actor', { actor_id: actor }),
      em.find('actor', { actor_id: [actor, 12] }),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(held).toEqual([])
    expect(viaWith.map((a) => a['actor_id'])).toEqual([12])
    em.create('film_actor', { actor_id: actor, film_id: 1 })
    expect(() => em.plan()).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }))
  })

  test('a stored value that cannot be decoded names the row read', async () => {
    const { root } = await setup(driver)
    const em = root.fork()
    const bad = (key: string) =>
      em
        .loadRows('actor', {
          text: `select ${key} as c0, 'Ada' as c1, 'Byron' as c2, 'yesterday-ish' as c3`,
          params: [],
        })
        .catch((x: Error) => x)
    const keyed = await bad("'12'")
    expect(keyed).toMatchObject({ code: 'INVALID_VALUE', table: 'actor', column: 'last_update' })
    expect((keyed as Error).message).toMatch(/^actor\.last_update \(row actor_id=12\): /)
    const keyless = await bad("'twelve'")
    expect((keyless as Error).message).toMatch(/^actor\.actor_id \(a row read\): /)
  })
})
