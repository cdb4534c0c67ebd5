import { describe, expect, it } from 'vitest'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { relationsOf } from '../../../src/schema/relations.ts'

const spec = {
  author: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] },
  publisher: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] },
  book: {
    columns: { id: 'int8', author_id: 'int8', publisher: { type: 'int8', nullable: true }, title: 'text' },
    primaryKey: ['id'],
    foreignKeys: [
      { columns: ['author_id'], references: 'author' },
      { columns: ['publisher'], references: 'publisher' },
    ],
  },
  review: {
    columns: { id: 'int8', book_id: 'int8', stars: 'int2' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['book_id'], references: 'book' }],
  },
  tag: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] },
  book_tag: {
    columns: { book_id: 'int8', tag_id: 'int8' },
    primaryKey: ['book_id', 'tag_id'],
    foreignKeys: [
      { columns: ['book_id'], references: 'book' },
      { columns: ['tag_id'], references: 'tag' },
    ],
  },
  person: { columns: { id: 'int8' }, primaryKey: ['id'] },
  message: {
    columns: { id: 'int8', sender_id: 'int8', recipient_id: 'int8' },
    primaryKey: ['id'],
    foreignKeys: [
      { columns: ['sender_id'], references: 'person' },
      { columns: ['recipient_id'], references: 'person' },
    ],
  },
  edition: {
    columns: { book_id: 'int8', number: 'int4', year: 'int4' },
    primaryKey: ['book_id', 'number'],
    foreignKeys: [{ columns: ['book_id'], references: 'book' }],
  },
  printing: {
    columns: { id: 'int8', book_id: 'int8', edition_number: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [
      {
        columns: ['book_id', 'edition_number'],
        references: 'edition',
        targetColumns: ['book_id', 'number'],
      },
    ],
  },
} as const

function names(schema: ReturnType<typeof defineSchema>, table: string) {
  return Object.fromEntries(
    [...relationsOf(schema, table).values()].map((r) => [r.name, `${r.kind} ${r.target}`]),
  )
}

describe('relations from foreign keys', () => {
  const schema = defineSchema(spec as never)

  it('name many-to-ones after the column without _id, the referenced table, or the foreign key', () => {
    expect(names(schema, 'book')).toEqual({
      author: 'many-to-one author',
      book_publisher_fkey: 'many-to-one publisher', // the column is named publisher: taken
      reviews: 'one-to-many review',
      book_tags: 'one-to-many book_tag',
      tags: 'many-to-many tag',
      editions: 'one-to-many edition',
    })
    expect(names(schema, 'message')).toEqual({
      sender: 'many-to-one person',
      recipient: 'many-to-one person',
    })
  })

  it('name one-to-manys after the referencing table in the plural, by the many-to-one when two point here', () => {
    expect(names(schema, 'author')).toEqual({ books: 'one-to-many book' })
    expect(names(schema, 'person')).toEqual({
      messages_by_sender: 'one-to-many message',
      messages_by_recipient: 'one-to-many message',
    })
  })

  it('find many-to-many links: a table keyed by exactly two foreign keys', () => {
    const tags = relationsOf(schema, 'book').get('tags')!
    expect(tags).toMatchObject({
      kind: 'many-to-many',
      columns: ['id'],
      targetColumns: ['id'],
      through: { table: 'book_tag', columns: ['book_id'], targetColumns: ['tag_id'] },
    })
    expect(names(schema, 'tag')).toMatchObject({
      books: 'many-to-many book',
      book_tags: 'one-to-many book_tag',
    })
    // edition is keyed by a foreign key and a column of its own: not a link
    expect(Object.values(names(schema, 'edition')).filter((k) => k.startsWith('many-to-many'))).toEqual([])
  })

  it('join composite keys column by column', () => {
    // two columns: named after the referenced table
    expect(relationsOf(schema, 'printing').get('edition')).toMatchObject({
      columns: ['book_id', 'edition_number'],
      targetColumns: ['book_id', 'number'],
    })
    expect(relationsOf(schema, 'edition').get('printings')).toMatchObject({
      kind: 'one-to-many',
      columns: ['book_id', 'number'],
      targetColumns: ['book_id', 'edition_number'],
    })
  })

  it('rename any relation by table.name, and refuse an unknown one or a taken name', () => {
    const renamed = defineSchema(spec as never, {
      relationNames: { 'author.books': 'works', 'book.author': 'writer' },
    })
    expect(relationsOf(renamed, 'author').has('works')).toBe(true)
    expect(relationsOf(renamed, 'book').get('writer')?.target).toBe('author')
    expect(() => defineSchema(spec as never, { relationNames: { 'author.novels': 'x' } })).toThrow(
      /relationNames names "author.novels"/,
    )
    expect(() => defineSchema(spec as never, { relationNames: { 'book.author': 'reviews' } })).toThrow(
      /must be a new name/,
    )
  })
})
