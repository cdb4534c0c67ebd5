import type { TableModel } from '../../../src/model/model.ts'
import { buildTableModel } from '../../../src/schema/build-table.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { trackEntity } from '../../../src/track/entity-proxy.ts'
import type { Entity, EntityState, EntityStatus } from '../../../src/track/entity-state.ts'
import { rowOf } from '../../../src/track/row.ts'
import { snapshotOf } from '../../../src/track/snapshot.ts'

export const BOOK_1 = '0190a8c2-0000-7000-8000-000000000001'
export const BOOK_2 = '0190a8c2-0000-7000-8000-000000000002'

/**
 * A small shop: a versioned author with an identity key, a book with mutable columns (array, jsonb,
 * bytea, timestamptz), a tag with an int4 identity key, a join table, an event with an `identity
 * always` column and a generated one, a shelf with a composite key referenced by a composite FK, a
 * profile whose key is its author's, a person with only a date, and counters keyed by numeric and int2.
 */
export const shop = defineSchema({
  author: {
    columns: {
      id: { type: 'int8', identity: 'by default' },
      name: 'text',
      bio: { type: 'text', nullable: true },
      version: { type: 'int4', default: true },
    },
    primaryKey: ['id'],
    version: 'version',
  },
  book: {
    columns: {
      id: 'uuid',
      author_id: 'int8',
      title: { type: 'text', nullable: true },
      tags: { type: 'text[]', default: true },
      meta: { type: 'jsonb', nullable: true },
      cover: { type: 'bytea', nullable: true },
      published_at: { type: 'timestamptz', nullable: true },
      isbn: { type: 'text', nullable: true },
    },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['author_id'], references: 'author' }],
    uniques: [['isbn']],
  },
  review: {
    columns: {
      id: 'int4',
      book_isbn: { type: 'text', nullable: true },
      loose_ref: { type: 'int8', nullable: true },
    },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['book_isbn'], references: 'book', targetColumns: ['isbn'] }],
  },
  tag: {
    columns: { id: { type: 'int4', identity: 'by default' }, name: 'text' },
    primaryKey: ['id'],
    uniques: [['name']],
  },
  book_tag: {
    columns: { book_id: 'uuid', tag_id: 'int4', note: { type: 'text', nullable: true } },
    primaryKey: ['book_id', 'tag_id'],
    foreignKeys: [
      { columns: ['book_id'], references: 'book' },
      { columns: ['tag_id'], references: 'tag' },
    ],
  },
  event: {
    columns: {
      id: 'int8',
      seq_no: { type: 'int8', identity: 'always' },
      total: { type: 'numeric', generated: true, nullable: true },
      label: { type: 'text', nullable: true },
    },
    primaryKey: ['id'],
  },
  shelf: {
    columns: { room: 'text', slot: 'int4' },
    primaryKey: ['room', 'slot'],
  },
  copy: {
    columns: { id: 'int4', room: 'text', slot: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['room', 'slot'], references: 'shelf' }],
  },
  profile: {
    columns: { author_id: 'int8', bio: 'text' },
    primaryKey: ['author_id'],
    foreignKeys: [{ columns: ['author_id'], references: 'author' }],
  },
  setting: {
    columns: { id: 'int4', profile_id: 'int8' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['profile_id'], references: 'profile' }],
  },
  person: {
    columns: { id: 'int4', born: { type: 'date', nullable: true } },
    primaryKey: ['id'],
  },
  counter: {
    columns: { id: { type: 'numeric', sequence: 'public.counter_id_seq' }, n: 'int4' },
    primaryKey: ['id'],
  },
  small: {
    columns: { id: { type: 'int2', identity: 'always' }, n: 'int4' },
    primaryKey: ['id'],
  },
})

/** The table `key` of {@link shop}. */
export function table(key: string): TableModel {
  const t = shop.tables.get(key)
  if (t === undefined) throw new Error(`no table ${key} in the fixture`)
  return t
}

/** A table with a column named `__proto__` (defineSchema's object literal could not declare it). */
export const protoTable = buildTableModel({
  schema: 'public',
  name: 'proto_col',
  columns: [
    { name: 'id', type: 'int4' },
    { name: '__proto__', type: 'text', nullable: true },
  ],
  primaryKey: ['id'],
})

/**
 * An entity made by `trackEntity` alone (no unit of work): its state, and the states `onTouch` was
 * called with, in order. A managed entity gets the snapshot of `values`.
 */
export function tracked(
  t: TableModel,
  values: Readonly<Record<string, unknown>>,
  status: EntityStatus = 'managed',
  owner: object = {},
): { state: EntityState; entity: Entity; touched: EntityState[] } {
  const row = rowOf(values)
  const touched: EntityState[] = []
  const snapshot = status === 'new' ? null : snapshotOf(t, row)
  const state = trackEntity(t, row, status, snapshot, {
    owner,
    onTouch: (s) => touched.push(s),
    scopes: new Map(),
  })
  return { state, entity: state.entity, touched }
}

/** `fn`'s PipeflushError fields (code, table, column, keys, message), or a failure if it does not throw. */
export function thrown(fn: () => unknown): {
  name: string
  code?: string
  table?: string
  column?: string
  keys?: readonly unknown[]
  message: string
} {
  try {
    fn()
  } catch (e) {
    const error = e as Error & { code?: string; table?: string; column?: string; keys?: readonly unknown[] }
    const out: ReturnType<typeof thrown> = { name: error.name, message: error.message }
    if (error.code !== undefined) out.code = error.code
    if (error.table !== undefined) out.table = error.table
    if (error.column !== undefined) out.column = error.column
    if (error.keys !== undefined) out.keys = error.keys
    return out
  }
  throw new Error('expected an error, none was thrown')
}
