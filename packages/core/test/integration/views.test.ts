import { defineSchema, EntityManager, type PipelineMode } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { rentalDdl } from './fixtures/rental-schema.ts'

// Views and materialized views are read with find (and load(query), in @pipeflush/kysely) as rows
// that cannot be flushed: writing one is UNSUPPORTED_TABLE, at once for create, upsert, remove and
// assignments, at the flush (before sending) for a value changed in place.
const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const drivers: readonly DriverName[] = TEST_DRIVERS

function schemaOf(driver: DriverName): string {
  return `v_${driver.replace(/[^a-z]/g, '')}`
}

beforeAll(async () => {
  for (const driver of drivers) {
    const schema = schemaOf(driver)
    await db.sql.unsafe(rentalDdl(schema))
    await db.sql.unsafe(`
      set search_path = "${schema}";
      insert into customer (store_id, first_name, last_name, address_id) values (1, 'Mary', 'Smith', 1), (1, 'Ada', 'Byron', 1);
      insert into rental (rental_date, inventory_id, customer_id, staff_id) values ('2022-01-02', 1, 1, 1);
      insert into payment (customer_id, staff_id, rental_id, amount, payment_date) values (1, 1, 1, 2.99, '2022-01-02');
      refresh materialized view sales_by_store;
      reset search_path;
    `)
  }
})

async function setup(driver: DriverName, mode: PipelineMode = 'burst') {
  const schema = schemaOf(driver)
  const c = db.client(driver, {
    max: 1,
    postgresJs: { connection: { search_path: schema } },
    pg: { options: `-c search_path=${schema}` },
  })
  const root = await EntityManager.connect(c.client, { pipeline: mode })
  return { ...c, root, schema }
}

describe.each(drivers)('%s', (driver) => {
  test('views and materialized views are read by find, as read-only rows; the catalog says what they are', async () => {
    const { root } = await setup(driver)
    expect(root.schema.tables.get('customer_list')).toMatchObject({
      kind: 'view',
      primaryKey: [],
      copyable: false,
    })
    expect(root.schema.tables.get('sales_by_store')?.kind).toBe('materialized view')
    expect(root.schema.tables.get('customer')?.kind).toBe('table')
    const em = root.fork()
    const listed = await em.find('customer_list', { city: 'Mariehamn', name: ['Mary Smith', 'Ada Byron'] })
    expect(listed.map((r) => ({ ...r })).sort((a, b) => Number(a['id']) - Number(b['id']))).toEqual([
      {
        id: 1,
        name: 'Mary Smith',
        address: '1 Harbour Road',
        phone: '555-0100',
        city: 'Mariehamn',
        country: 'Aland',
        sid: 1,
      },
      {
        id: 2,
        name: 'Ada Byron',
        address: '1 Harbour Road',
        phone: '555-0100',
        city: 'Mariehamn',
        country: 'Aland',
        sid: 1,
      },
    ])
    expect(em.stateOf(listed[0])).toBe('managed')
    // Without a key, each read gives new objects (nothing to find them by).
    const [again] = await em.find('customer_list', { id: listed[0]!['id'] })
    expect(again).not.toBe(listed[0])
    expect({ ...again }).toEqual({ ...listed[0] })
    const [sales] = await em.find('sales_by_store')
    expect({ ...sales }).toEqual({ store_id: 1, total_sales: '2.99', payments: '1' })
    const [film] = await em.find('film_list', { rating: 'G' })
    expect(film).toMatchObject({
      title: 'Academy Dinosaur',
      special_features: ['Deleted Scenes', 'Behind the Scenes'],
    })
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  })

  test('writing a view is UNSUPPORTED_TABLE at once: create, upsert, assignment, remove, load by key, a row as a key', async () => {
    const { root } = await setup(driver)
    const em = root.fork()
    const [row] = await em.find('customer_list', { id: 1 })
    expect(() => em.create('customer_list', { name: 'x' })).toThrowError(
      expect.objectContaining({
        code: 'UNSUPPORTED_TABLE',
        table: 'customer_list',
        message: expect.stringMatching(/is a view/),
      }),
    )
    expect(() => em.upsert('customer_list', { id: 9, name: 'x' }, { conflict: ['id'] })).toThrowError(
      expect.objectContaining({ code: 'UNSUPPORTED_TABLE' }),
    )
    expect(() => {
      row!['name'] = 'Mary Jones'
    }).toThrowError(expect.objectContaining({ code: 'UNSUPPORTED_TABLE', column: 'name' }))
    expect(row!['name']).toBe('Mary Smith')
    expect(() => em.remove(row!)).toThrowError(expect.objectContaining({ code: 'UNSUPPORTED_TABLE' }))
    await expect(em.load('customer_list', 1)).rejects.toMatchObject({ code: 'UNSUPPORTED_TABLE' })
    expect(() =>
      em.create('rental', { customer_id: row, rental_date: new Date(), inventory_id: 1, staff_id: 1 }),
    ).not.toThrow()
    await expect(em.flush()).rejects.toMatchObject({
      code: 'INVALID_VALUE',
      table: 'rental',
      column: 'customer_id',
    })
  })

  test.each(modes)(
    '%s: a view row changed in place fails the flush before sending; the unit of work is kept, and undoing the change lets it flush',
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const [film] = await em.find('film_list', { rating: 'G' })
      const actor = em.create('actor', { first_name: 'Grace', last_name: 'Mostel' })
      ;(film!['special_features'] as string[]).push('Commentaries')
      counter.reset()
      await expect(em.flush()).rejects.toMatchObject({
        code: 'UNSUPPORTED_TABLE',
        table: 'film_list',
        column: 'special_features',
      })
      expect(counter.read().writes).toBe(0)
      ;(film!['special_features'] as string[]).pop()
      const report = await em.flush()
      expect(report.inserted).toBe(1)
      const [stored] = await query(
        `select first_name from "${schema}".actor where actor_id = ${Number(actor['actor_id'])}`,
      )
      expect(stored).toEqual({ first_name: 'Grace' })
    },
  )

  test('a view declared in code with a key: its rows are tracked by it (load, the same object again), still read-only', async () => {
    const { client } = await setup(driver)
    const read = (await setup(driver)).root.schema
    const customer = read.tables.get('customer')!
    const schema = defineSchema(
      {
        customer_list: {
          kind: 'view',
          schema: schemaOf(driver),
          columns: {
            id: 'int4',
            name: 'text',
            address: 'text',
            phone: 'text',
            city: 'text',
            country: 'text',
            sid: 'int4',
          },
          primaryKey: ['id'],
        },
        customer: {
          schema: schemaOf(driver),
          columns: Object.fromEntries(
            customer.columns.map((c) => [c.name, { sql: c.sqlType, nullable: c.nullable }]),
          ),
          primaryKey: ['customer_id'],
        },
      },
      { schema: schemaOf(driver) },
    )
    const root = await EntityManager.connect(client, { schema })
    const em = root.fork()
    const mary = await em.load('customer_list', 1)
    expect(mary['name']).toBe('Mary Smith')
    const [same] = await em.find('customer_list', { name: 'Mary Smith' })
    expect(same).toBe(mary)
    expect(() => {
      mary['phone'] = '0'
    }).toThrowError(expect.objectContaining({ code: 'UNSUPPORTED_TABLE' }))
  })
})
