import type { ChangeSet, FlushPlan, PlannedStatement } from '../../../src/plan/types.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'

export const A = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
export const B = 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
export const C = 'c0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'

/** A library schema: a nullable author <-> book cycle, a join table, a self reference, identity, enum, generated. */
export const library = defineSchema({
  author: {
    columns: {
      id: { type: 'int8', identity: 'by default' },
      name: 'text',
      fav_book_id: { type: 'uuid', nullable: true },
      version: { type: 'int4', default: true },
    },
    primaryKey: ['id'],
    version: 'version',
    foreignKeys: [{ columns: ['fav_book_id'], references: 'book' }],
  },
  book: {
    columns: {
      id: 'uuid',
      author_id: 'int8',
      title: { type: 'text', nullable: true },
      tags: { type: 'text[]', default: true },
    },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['author_id'], references: 'author', onDelete: 'cascade' }],
  },
  tag: { columns: { id: 'int8', name: 'varchar(40)' }, primaryKey: ['id'], uniques: [['name']] },
  book_tag: {
    columns: { book_id: 'uuid', tag_id: 'int8' },
    primaryKey: ['book_id', 'tag_id'],
    foreignKeys: [
      { columns: ['book_id'], references: 'book', onDelete: 'cascade' },
      { columns: ['tag_id'], references: 'tag' },
    ],
  },
  node: {
    columns: {
      id: 'int8',
      parent_id: { type: 'int8', nullable: true },
      label: { type: 'text', nullable: true },
    },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['parent_id'], references: 'node', onDelete: 'cascade' }],
  },
  event: {
    columns: {
      id: { type: 'int8', identity: 'always' },
      mood: { type: 'enum', enumLabels: ['sad', 'ok', 'happy'], sqlType: '"public"."mood"' },
      total: { type: 'numeric', generated: true, nullable: true },
    },
    primaryKey: ['id'],
  },
})

/** A chain c -> b -> a, a NOT NULL cycle person <-> passport and a deferred cycle x <-> y. */
export const shapes = defineSchema({
  a: { columns: { id: 'int4' }, primaryKey: ['id'] },
  b: {
    columns: { id: 'int4', a_id: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['a_id'], references: 'a' }],
  },
  c: {
    columns: { id: 'int4', b_id: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['b_id'], references: 'b' }],
  },
  person: {
    columns: { id: 'int4', passport_id: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['passport_id'], references: 'passport' }],
  },
  passport: {
    columns: { id: 'int4', person_id: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['person_id'], references: 'person' }],
  },
  x: {
    columns: { id: 'int4', y_id: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['y_id'], references: 'y', initiallyDeferred: true }],
  },
  y: {
    columns: { id: 'int4', x_id: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['x_id'], references: 'x', deferrable: true }],
  },
})

/** A change set with only the given lists. */
export function changes(partial: Partial<ChangeSet>): ChangeSet {
  return { inserts: [], updates: [], deletes: [], ...partial }
}

/** `kind table` per statement, per wave, with `(fix-up)` for fix-ups. */
export function outline(plan: FlushPlan): string[][] {
  return plan.waves.map((wave) => wave.map(label))
}

export function label(statement: PlannedStatement): string {
  return `${statement.kind} ${statement.table}${statement.fixup ? ' (fix-up)' : ''}`
}
