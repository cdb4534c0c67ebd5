import { decodeValue, encodeValue, isPipeflushError } from '@pipeflush/core'
import { relations, type SQL, sql } from 'drizzle-orm'
import {
  bigint,
  geometry,
  halfvec,
  integer,
  pgEnum,
  pgSchema,
  pgTable,
  serial,
  sparsevec,
  text,
  unique,
  vector,
} from 'drizzle-orm/pg-core'
import { describe, expect, it } from 'vitest'
import { buildSchema } from '../../src/schema/build-schema.ts'
import { SchemaTables } from '../../src/schema/tables.ts'
import { schema } from '../fixtures/schema.ts'

/** The schema model of a schema object, column names as declared (no casing). */
function modelOf(objects: Record<string, unknown>, version: Record<string, string> = {}) {
  const tables = new SchemaTables(objects)
  return buildSchema(
    objects,
    tables,
    (c) => c.name,
    (t) => version[t.key],
  )
}

describe('the schema from the definitions', () => {
  const { model, untracked } = modelOf(schema, { books: 'version' })
  const table = (key: string) => model.tables.get(key)!

  it('keys tables by the schema object, columns by property with their database names', () => {
    expect([...model.tables.keys()]).toEqual([
      'authors',
      'books',
      'reviews',
      'tags',
      'bookTags',
      'events',
      'kinds',
    ])
    expect(untracked.size).toBe(0)
    const books = table('books')
    expect(books).toMatchObject({
      schema: 'public',
      name: 'book',
      primaryKey: ['id'],
      versionColumn: 'version',
    })
    expect(books.columnsByName.get('authorId')).toMatchObject({
      dbName: 'author_id',
      type: 'int4',
      nullable: false,
    })
    expect(table('events')).toMatchObject({ schema: 'audit', name: 'event', sqlName: '"audit"."event"' })
    expect(table('bookTags').primaryKey).toEqual(['bookId', 'tagId'])
  })

  it('declares keys, foreign keys, uniques, defaults, identities, serials and generated columns', () => {
    expect(table('books').foreignKeys).toEqual([
      expect.objectContaining({
        name: 'book_author_id_author_id_fk',
        columns: ['authorId'],
        target: 'authors',
        targetColumns: ['id'],
        onDelete: 'cascade',
      }),
    ])
    expect(table('books').uniques).toEqual([{ name: 'book_isbn_unique', columns: ['isbn'] }])
    expect(table('tags').uniques).toEqual([{ name: 'tag_name_unique', columns: ['name'] }])
    // NULLS NOT DISTINCT, of a constraint or a column: a unit's hand-offs of such values are ordered.
    const folders = pgTable(
      'folders',
      {
        id: integer('id').primaryKey(),
        parentId: integer('parent_id'),
        name: text('name').notNull(),
        slug: text('slug').unique('folders_slug_key', { nulls: 'not distinct' }),
      },
      (t) => [unique('folders_sibling').on(t.parentId, t.name).nullsNotDistinct()],
    )
    expect(modelOf({ folders }).model.tables.get('folders')!.uniques).toEqual([
      { name: 'folders_sibling', columns: ['parentId', 'name'], nullsNotDistinct: true },
      { name: 'folders_slug_key', columns: ['slug'], nullsNotDistinct: true },
    ])
    const books = table('books').columnsByName
    expect(books.get('id')).toMatchObject({ sequence: '"public"."book_id_seq"', hasDefault: true })
    expect(books.get('createdAt')).toMatchObject({ hasDefault: true, type: 'other', castType: 'timestamptz' })
    expect(books.get('updatedAt')?.hasDefault).toBe(false) // $defaultFn runs at create, in the application
    expect(table('tags').columnsByName.get('id')).toMatchObject({
      identity: 'by default',
      sequence: '"public"."tag_id_seq"',
    })
    expect(table('events').columnsByName.get('id')).toMatchObject({
      identity: 'always',
      sequence: '"audit"."event_id_seq"',
    })
    expect(table('kinds').columnsByName.get('generated')?.generated).toBe(true)
    expect(table('kinds').columnsByName.get('serial8')).toMatchObject({ type: 'int8', nullable: false })
    expect(table('kinds').columnsByName.get('feeling')).toMatchObject({
      type: 'enum',
      sqlType: '"mood"',
      enumLabels: ['sad', 'ok', 'happy'],
    })
    expect(table('kinds').columnsByName.get('moods')).toMatchObject({ type: 'enum', isArray: true })
  })

  it('names relations as relations() does; a declared relation without a foreign key gets one', () => {
    expect(table('reviews').foreignKeys.map((fk) => fk.columns)).toEqual([['bookId']])
    const names = model.relationNames ?? {}
    expect(Object.values(names).sort()).toEqual(['works', 'writer'])
  })

  it('leaves out a many() without the one() that pairs with it, as Drizzle cannot query it either', () => {
    const people = pgTable('person', { id: serial('id').primaryKey() })
    const pets = pgTable('pet', { id: serial('id').primaryKey(), ownerId: integer('owner_id') })
    const peopleRelations = relations(people, ({ many }) => ({ pets: many(pets) }))
    const { model: m } = modelOf({ people, pets, peopleRelations })
    expect(m.tables.get('people')?.foreignKeys).toEqual([])
    expect(m.relationNames ?? {}).toEqual({})
  })

  it('leaves a table without a primary key untracked, saying why', () => {
    const logs = pgTable('log', { line: text('line') })
    expect(modelOf({ logs }).untracked.get('logs')).toMatch(/no primary key/)
  })

  it('refuses arrays of arrays, naming the column', () => {
    const grid = pgTable('grid', { id: serial('id').primaryKey(), cells: integer('cells').array().array() })
    try {
      modelOf({ grid })
      expect.unreachable()
    } catch (e) {
      expect(isPipeflushError(e, 'INVALID_CONFIG') && e.message).toMatch(/grid\.cells: arrays of arrays/)
    }
  })

  it('knows the columns a generated key is computed from by those its generatedAlwaysAs interpolates', () => {
    const doubled = pgTable('doubled', {
      a: integer().notNull(),
      b: text().notNull(),
      id: integer()
        .primaryKey()
        .generatedAlwaysAs((): SQL => sql`${doubled.a} * 2 + length(${doubled.b})`),
      note: text(),
      loud: text().generatedAlwaysAs((): SQL => sql`upper(${doubled.note})`),
      raw: integer().generatedAlwaysAs(sql`42`),
    })
    const t = modelOf({ doubled }).model.tables.get('doubled')!
    expect(t.keyInputs).toEqual(
      new Map([
        ['a', 'id'],
        ['b', 'id'],
      ]),
    )
    expect(t.columnsByName.get('loud')?.generatedFrom).toEqual(['note'])
    expect(t.columnsByName.get('raw')).not.toHaveProperty('generatedFrom')
  })

  it("takes an enum of another schema qualified, and the database's casing for unnamed columns", () => {
    const s = pgSchema('shop')
    const state = s.enum('state', ['open', 'shut'])
    const orders = s.table('orders', { orderId: serial().primaryKey(), customerName: text(), state: state() })
    const tables = new SchemaTables({ orders })
    const snake = (c: { name: string }) => c.name.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)
    const { model: m } = buildSchema({ orders }, tables, snake, () => undefined)
    const o = m.tables.get('orders')!
    expect(o.columnsByName.get('customerName')?.dbName).toBe('customer_name')
    expect(o.columnsByName.get('state')?.sqlType).toBe('"shop"."state"')
    expect(o.columnsByName.get('orderId')?.sequence).toBe('"shop"."orders_order_id_seq"')
  })
})

describe("pgvector's and PostGIS's columns (no such extension here: their text forms)", () => {
  const mood = pgEnum('m', ['a'])
  const things = pgTable('thing', {
    id: bigint('id', { mode: 'number' }).primaryKey(),
    embedding: vector('embedding', { dimensions: 3 }),
    half: halfvec('half', { dimensions: 2 }),
    sparse: sparsevec('sparse', { dimensions: 5 }),
    place: geometry('place', { type: 'point', mode: 'xy', srid: 4326 }),
    spot: geometry('spot', { type: 'point' }),
    m: mood('m'),
  })
  const { model } = modelOf({ things, mood, rel: relations(things, () => ({})) })
  const column = (name: string) => model.tables.get('things')!.columnsByName.get(name)!

  it('are typed by their SQL type, read and written as Drizzle maps their text', () => {
    expect(column('embedding')).toMatchObject({ type: 'other', castType: 'vector' })
    expect(decodeValue('[1,2.5,-3]', column('embedding'))).toEqual([1, 2.5, -3])
    expect(encodeValue([1, 2.5, -3], column('embedding'), { table: 'things' })).toBe('[1,2.5,-3]')
    expect(decodeValue('[0.5,1]', column('half'))).toEqual([0.5, 1])
    expect(encodeValue([0.5, 1], column('half'), { table: 'things' })).toBe('[0.5,1]')
    expect(decodeValue('{1:1,3:2}/5', column('sparse'))).toBe('{1:1,3:2}/5')
    // geometry::text is hex EWKB; Drizzle writes points as WKT
    const ewkb = '0101000020E6100000000000000000F03F0000000000000040'
    expect(decodeValue(ewkb, column('place'))).toEqual({ x: 1, y: 2 })
    expect(encodeValue({ x: 1, y: 2 }, column('place'), { table: 'things' })).toBe('point(1 2)')
    expect(decodeValue('0101000000000000000000F03F0000000000000040', column('spot'))).toEqual([1, 2])
  })
})
