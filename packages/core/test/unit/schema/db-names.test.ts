import { describe, expect, it } from 'vitest'
import { isPipeflushError, PipeflushError } from '../../../src/errors.ts'
import { columnNamedByApi } from '../../../src/flush/outcome.ts'
import { deleteSql } from '../../../src/plan/sql/delete-sql.ts'
import { insertSql } from '../../../src/plan/sql/insert-sql.ts'
import { updateSql } from '../../../src/plan/sql/update-sql.ts'
import { upsertReturningSql } from '../../../src/plan/sql/upsert-sql.ts'
import { graphLevels } from '../../../src/read/graph.ts'
import { textParams, whereSql } from '../../../src/read/select-sql.ts'
import { columnSql } from '../../../src/schema/column-sql.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'

// Columns the API names otherwise than the database (`defineSchema`'s column `name`): entities, where,
// keys, conflict lists and errors use the spec's keys; every statement names the database's columns.
const schema = defineSchema({
  author: {
    columns: {
      id: { type: 'int8', identity: 'by default' },
      fullName: { type: 'text', name: 'full_name' },
      rowVersion: { type: 'int4', name: 'row_version', default: true },
    },
    primaryKey: ['id'],
    uniques: [['fullName']],
    version: 'rowVersion',
  },
  book: {
    columns: {
      bookId: { type: 'int8', name: 'book_id', identity: 'by default' },
      authorId: { type: 'int8', name: 'author_id' },
      title: 'text',
    },
    primaryKey: ['bookId'],
    foreignKeys: [{ columns: ['authorId'], references: 'author' }],
  },
})
const author = schema.tables.get('author')!
const book = schema.tables.get('book')!

describe('columns named otherwise in the database', () => {
  it('keep the spec key as their name and the database name apart', () => {
    expect(book.columnsByName.get('authorId')).toMatchObject({ name: 'authorId', dbName: 'author_id' })
    expect(book.columnsByName.get('title')?.dbName).toBeUndefined()
    expect(columnSql(book, 'authorId')).toBe('"author_id"')
    expect(columnSql(book, 'title')).toBe('"title"')
  })

  it('take default constraint and identity sequence names from the database names', () => {
    expect(book.foreignKeys[0]?.name).toBe('book_author_id_fkey')
    expect(author.uniques[0]?.name).toBe('author_full_name_key')
    expect(book.columnsByName.get('bookId')?.sequence).toBe('"public"."book_book_id_seq"')
  })

  it('are written under their database names, the unnest keeping the API names', () => {
    expect(insertSql(book, ['bookId', 'authorId', 'title'], ['bookId'])).toBe(
      'insert into "public"."book" ("book_id", "author_id", "title") ' +
        'select d."bookId"::int8, d."authorId"::int8, d."title"::text ' +
        'from unnest($1::text[], $2::text[], $3::text[]) as d("bookId", "authorId", "title") ' +
        'returning "book_id"::text as r0',
    )
    const update = updateSql(author, ['fullName'], false, ['rowVersion'])
    expect(update).toContain('set "full_name" = d."fullName"::text, "row_version" = t."row_version" + 1')
    expect(update).toContain(
      'where t."id" = d."id"::int8 and (d."$v" is null or t."row_version" = d."$v"::int4)',
    )
    expect(update).toContain('returning t."row_version", d."id" as "$k1"')
    expect(update).toContain('select w."row_version"::text as r0, c.*')
    expect(deleteSql(author)).toContain('t."row_version" = d."$v"::int4')
    const upsert = upsertReturningSql(
      author,
      ['id', 'fullName'],
      { conflict: ['fullName'], update: [] },
      'rows',
    )
    expect(upsert.sql).toContain('on conflict ("full_name") do update set "full_name" = "author"."full_name"')
    expect(upsert.sql).toContain(
      'returning "id"::text as r0, "full_name"::text as r1, "row_version"::text as r2',
    )
  })

  it('are read and compared under their database names, with where keyed by the API names', () => {
    const { sql, params } = whereSql(book, { authorId: 3, title: null }, 't0')
    const [found] = graphLevels(schema, book, { where: sql, params: textParams(params) }, {})
    expect(found?.statement.text).toBe(
      'select t0."book_id"::text as c0, t0."author_id"::text as c1, t0."title"::text as c2 from "public"."book" as t0 ' +
        'where t0."author_id" = $1::text::int8 and t0."title" is null order by t0."book_id"',
    )
    const levels = graphLevels(schema, author, { where: '', params: [] }, { books: true })
    expect(levels[1]?.statement.text).toContain('where (t1."author_id") in (select t0."id" from')
  })

  it("name a list read's options by the API and its SQL by the database (orderBy, $where, $orderBy, $limit, $count)", () => {
    const levels = graphLevels(
      schema,
      author,
      { where: '', params: [], orderBy: 't0."full_name" desc, t0."id"', limit: 10 },
      { books: { $where: { title: 'x' }, $orderBy: { authorId: 'desc' }, $limit: 2 }, $count: ['books'] },
    )
    const texts = levels.map((l) => l.statement.text).join('\n')
    expect(texts).not.toMatch(/"(authorId|bookId|fullName|rowVersion)"/)
    expect(texts).toContain('partition by t3."author_id" order by t3."author_id" desc, t3."book_id"')
    expect(texts).toContain(
      'select t1."author_id"::text as k0, count(*)::text as n from "public"."book" as t1',
    )
    expect(texts).toContain('group by t1."author_id"')
    expect(() =>
      graphLevels(schema, author, { where: '', params: [] }, { books: { $orderBy: { author_id: 'asc' } } }),
    ).toThrow(/book has no column author_id/)
  })

  it('reject two columns of one database name', () => {
    expect(() =>
      defineSchema({ t: { columns: { a: 'int4', b: { type: 'int4', name: 'a' } }, primaryKey: ['a'] } }),
    ).toThrow(/two columns are named "a"/)
  })

  it('name a column the server reported by its API name', () => {
    const e = new PipeflushError('CONSTRAINT_VIOLATION', 'null value', { table: 'book', column: 'author_id' })
    expect(columnNamedByApi(e, schema)).toBe(e)
    expect(isPipeflushError(e) && e.column).toBe('authorId')
    const other = new PipeflushError('CONSTRAINT_VIOLATION', 'x', { table: 'book', column: 'title' })
    expect((columnNamedByApi(other, schema) as PipeflushError).column).toBe('title')
    // A table the server names (burst: the statement is not known) is given by its key.
    const keyed = defineSchema({
      books: { name: 'book', columns: { bookId: { type: 'int8', name: 'id' } }, primaryKey: ['bookId'] },
    })
    const served = new PipeflushError('CONSTRAINT_VIOLATION', 'x', { table: 'book', column: 'id' })
    expect(columnNamedByApi(served, keyed)).toMatchObject({ table: 'books', column: 'bookId' })
  })

  it('name the column of a foreign key the database names otherwise than the schema, by the detail', () => {
    const violation = (detail: string) =>
      new PipeflushError('CONSTRAINT_VIOLATION', 'violates foreign key constraint', {
        table: 'book',
        constraint: 'fk_book_author', // the schema's definitions call it otherwise
        sqlState: '23503',
        detail,
      })
    const missing = violation('Key (author_id)=(999999) is not present in table "author".')
    expect(columnNamedByApi(missing, schema)).toMatchObject({ table: 'book', column: 'authorId' })
    // A row still referenced: the detail names the referenced table's key, not a column of `book`.
    const referenced = violation('Key (id)=(5) is still referenced from table "book".')
    expect((columnNamedByApi(referenced, schema) as PipeflushError).column).toBeUndefined()
    // A detail left out (a role that may not read the row): no column.
    const hidden = violation('')
    expect((columnNamedByApi(hidden, schema) as PipeflushError).column).toBeUndefined()
  })
})
