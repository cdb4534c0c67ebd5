import { describe, expect, it } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'
import { planStatements } from '../../../src/plan/format-plan.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import { deleteSql } from '../../../src/plan/sql/delete-sql.ts'
import { insertSql } from '../../../src/plan/sql/insert-sql.ts'
import { updateSql } from '../../../src/plan/sql/update-sql.ts'
import type { PlannedStatement } from '../../../src/plan/types.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { A, B, changes, library } from './fixtures.ts'

const table = (key: string) => library.tables.get(key)!

const CHECK_AUTHOR =
  `select case when count(*) = cardinality($1::text[]) then count(*)::int else ('pipeflush:stale:' || ` +
  `json_build_object('table', 'author', 'expected', cardinality($1::text[]), 'matched', count(*), ` +
  `'sent', json_build_array($1::text[]), 'matched_keys', (select coalesce(json_agg(json_build_array(w."$k1")), '[]'::json) from w)))::int end as "pipeflush_rows" from w`

function only(statements: PlannedStatement[]): PlannedStatement {
  expect(statements).toHaveLength(1)
  return statements[0]!
}

describe('insert SQL', () => {
  it('casts each text[] element to the column type, columns in table order', () => {
    expect(insertSql(table('book'), ['id', 'author_id', 'title', 'tags'])).toBe(
      'insert into "public"."book" ("id", "author_id", "title", "tags") ' +
        'select d."id"::uuid, d."author_id"::int8, d."title"::text, d."tags"::text[] ' +
        'from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as d("id", "author_id", "title", "tags")',
    )
  })

  it('adds overriding system value when an identity always column is supplied, and casts enums by sqlType', () => {
    expect(insertSql(table('event'), ['id', 'mood'])).toBe(
      'insert into "public"."event" ("id", "mood") overriding system value select d."id"::int8, d."mood"::"public"."mood" ' +
        'from unnest($1::text[], $2::text[]) as d("id", "mood")',
    )
    expect(insertSql(table('event'), ['mood'])).not.toContain('overriding')
  })

  it('plans columns in table order whatever the order of the values, with one text[] per column', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [{ table: 'book', values: { tags: ['x', 'y,z'], title: null, author_id: 7n, id: A } }],
      }),
    )
    const statement = only(planStatements(plan))
    expect(statement.columns).toEqual(['id', 'author_id', 'title', 'tags'])
    expect(statement.params).toEqual([[A], ['7'], [null], ['{"x","y,z"}']])
    expect(statement).toMatchObject({ kind: 'insert', table: 'book', rowCount: 1, keys: [A], fixup: false })
  })

  it('splits rows supplying different columns into one statement per column set (the others take DEFAULT)', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'book', values: { id: A, author_id: 1 } },
          { table: 'book', values: { id: B, author_id: 1, title: 't' } },
        ],
      }),
    )
    expect(planStatements(plan).map((s) => s.columns)).toEqual([
      ['id', 'author_id'],
      ['id', 'author_id', 'title'],
    ])
  })

  it('rejects a generated column', () => {
    expect(() =>
      planFlush(library, changes({ inserts: [{ table: 'event', values: { id: 1, mood: 'ok', total: 3 } }] })),
    ).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_TABLE', column: 'total' }))
  })
})

describe('update SQL', () => {
  it('matches the expected version, increments it and checks the row count on the server', () => {
    expect(updateSql(table('author'), ['name'], false)).toBe(
      'with w as (update "public"."author" as t set "name" = d."name"::text, "version" = t."version" + 1 ' +
        'from unnest($1::text[], $2::text[], $3::text[]) as d("id", "name", "$v") ' +
        'where t."id" = d."id"::int8 and (d."$v" is null or t."version" = d."$v"::int4) returning d."id" as "$k1") ' +
        CHECK_AUTHOR,
    )
  })

  it('neither matches nor increments the version in a fix-up', () => {
    expect(updateSql(table('author'), ['fav_book_id'], true)).toBe(
      'with w as (update "public"."author" as t set "fav_book_id" = d."fav_book_id"::uuid ' +
        'from unnest($1::text[], $2::text[]) as d("id", "fav_book_id") ' +
        'where t."id" = d."id"::int8 returning d."id" as "$k1") ' +
        CHECK_AUTHOR,
    )
  })

  it('sends key, set and expected version parameters, null when a row gives no version', () => {
    const plan = planFlush(
      library,
      changes({
        updates: [
          { table: 'author', key: { id: 2 }, set: { name: "O'Brien" }, expectedVersion: 4 },
          { table: 'author', key: { id: 1 }, set: { name: 'Ann' } },
        ],
      }),
    )
    const statement = only(planStatements(plan))
    expect(statement).toMatchObject({
      kind: 'update',
      table: 'author',
      columns: ['name'],
      rowCount: 2,
      keys: [1, 2],
    })
    expect(statement.params).toEqual([
      ['1', '2'],
      ['Ann', "O'Brien"],
      [null, '4'],
    ])
    expect(statement.sql).not.toContain("O'Brien")
  })

  it('has one statement per set of changed columns and skips empty sets', () => {
    const plan = planFlush(
      library,
      changes({
        updates: [
          { table: 'book', key: { id: A }, set: { title: 'x' } },
          { table: 'book', key: { id: B }, set: { title: 'y', tags: [] } },
          { table: 'book', key: { id: 'c0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' }, set: {} },
        ],
      }),
    )
    expect(planStatements(plan).map((s) => [s.columns, s.keys])).toEqual([
      [['title'], [A]],
      [['title', 'tags'], [B]],
    ])
  })

  it('renames the expected-version element when a column is called $v', () => {
    const odd = defineSchema({
      t: { columns: { id: 'int4', $v: 'text', ver: 'int4' }, primaryKey: ['id'], version: 'ver' },
    })
    const sql = updateSql(odd.tables.get('t')!, ['$v'], false)
    expect(sql).toContain('as d("id", "$v", "$v1")')
    expect(sql).toContain('t."ver" = d."$v1"::int4')
  })

  it('returns the sent keys under names no column of the table has', () => {
    const odd = defineSchema({
      t: { columns: { a: 'int4', $k1: 'text', b: 'int4', $k3: 'text' }, primaryKey: ['a', 'b'] },
    })
    const sql = updateSql(odd.tables.get('t')!, ['$k1'], false, ['a', 'b', '$k3'])
    expect(sql).toContain('returning t."a", t."b", t."$k3", d."a" as "$k2", d."b" as "$k4")')
    expect(sql).toContain('json_build_array(w."$k2", w."$k4")')
  })
})

describe('delete SQL', () => {
  it('matches composite keys', () => {
    expect(deleteSql(table('book_tag'))).toBe(
      'with w as (delete from "public"."book_tag" as t using unnest($1::text[], $2::text[]) as d("book_id", "tag_id") ' +
        'where t."book_id" = d."book_id"::uuid and t."tag_id" = d."tag_id"::int8 ' +
        'returning d."book_id" as "$k1", d."tag_id" as "$k2") ' +
        `select case when count(*) = cardinality($1::text[]) then count(*)::int else ('pipeflush:stale:' || ` +
        `json_build_object('table', 'book_tag', 'expected', cardinality($1::text[]), 'matched', count(*), ` +
        `'sent', json_build_array($1::text[], $2::text[]), 'matched_keys', (select coalesce(json_agg(json_build_array(w."$k1", w."$k2")), '[]'::json) from w)))::int end as "pipeflush_rows" from w`,
    )
  })

  it('matches the expected version of versioned tables', () => {
    expect(deleteSql(table('author'))).toBe(
      'with w as (delete from "public"."author" as t using unnest($1::text[], $2::text[]) as d("id", "$v") ' +
        'where t."id" = d."id"::int8 and (d."$v" is null or t."version" = d."$v"::int4) ' +
        'returning d."id" as "$k1") ' +
        CHECK_AUTHOR,
    )
  })

  it('plans one delete per table with key and version parameters', () => {
    const plan = planFlush(
      library,
      changes({
        deletes: [
          { table: 'author', key: { id: 3 }, expectedVersion: 2 },
          { table: 'author', key: { id: 1 } },
        ],
      }),
    )
    const statement = only(planStatements(plan))
    expect(statement).toMatchObject({ kind: 'delete', columns: ['id', 'version'], rowCount: 2, keys: [1, 3] })
    expect(statement.params).toEqual([
      ['1', '3'],
      [null, '2'],
    ])
  })

  it('quotes a table key with quotes or backslashes safely in the check', () => {
    const odd = defineSchema({ "it's\\x": { columns: { id: 'int4' }, primaryKey: ['id'] } })
    expect(deleteSql(odd.tables.get("it's\\x")!)).toContain(`json_build_object('table', E'it''s\\\\x'`)
  })
})

describe('constant SQL text', () => {
  function plannedSql(rows: number): string[] {
    const ids = Array.from({ length: rows }, (_, i) => i + 1)
    const plan = planFlush(
      library,
      changes({
        inserts: ids.map((id) => ({ table: 'tag', values: { id, name: `t${id}` } })),
        updates: ids.map((id) => ({
          table: 'author',
          key: { id },
          set: { name: `a${id}` },
          expectedVersion: 1,
        })),
        deletes: ids.map((id) => ({ table: 'book_tag', key: { book_id: A, tag_id: id + 1000 } })),
      }),
    )
    const statements = planStatements(plan)
    expect(statements.map((s) => s.rowCount)).toEqual([rows, rows, rows])
    for (const statement of statements) for (const param of statement.params) expect(param).toHaveLength(rows)
    return statements.map((s) => s.sql)
  }

  it('is the same for 2 and 100 rows', () => {
    const two = plannedSql(2)
    const hundred = plannedSql(100)
    expect(hundred).toEqual(two)
    expect(two.join(' ')).not.toMatch(/\$4\b/)
  })

  it('uses only text[] parameters for several rows', () => {
    for (const sql of plannedSql(3)) {
      const params = sql.match(/\$\d+(::[a-z[\]]+)?/g) ?? []
      expect(params.length).toBeGreaterThan(0)
      for (const param of params) expect(param).toMatch(/^\$\d+::text\[\]$/)
    }
  })

  it('takes one row as text parameters, without unnest, in the same parameter order', () => {
    const one = plannedSql(1)
    expect(one).not.toEqual(plannedSql(2))
    for (const sql of one) {
      expect(sql).not.toContain('unnest')
      const params = sql.match(/\$\d+(::[a-z[\]]+)?/g) ?? []
      expect(params.length).toBeGreaterThan(0)
      for (const param of params) expect(param).toMatch(/^\$\d+::text$/)
    }
    const [update, insert, remove] = one // a wave's updates go first
    expect(insert).toBe(
      'insert into "public"."tag" ("id", "name") values ($1::text::int8, $2::text::varchar)',
    )
    expect(update).toContain(
      'where t."id" = $1::text::int8 and ($3::text is null or t."version" = $3::text::int4) returning 1)',
    )
    expect(update).toContain(
      "'sent', json_build_array(json_build_array($1::text)), 'matched_keys', '[]'::json",
    )
    expect(remove).toContain(
      'where t."book_id" = $1::text::uuid and t."tag_id" = $2::text::int8 returning 1)',
    )
    expect(remove).toContain('case when count(*) = 1 then count(*)::int else')
  })
})

describe('invalid values', () => {
  it('fail the plan before anything is sent', () => {
    expect(() =>
      planFlush(library, changes({ inserts: [{ table: 'tag', values: { id: 1, name: Number.NaN } }] })),
    ).toThrow(PipeflushError)
    expect(() =>
      planFlush(library, changes({ inserts: [{ table: 'tag', values: { id: 1, name: undefined } }] })),
    ).toThrow(expect.objectContaining({ code: 'INVALID_VALUE' }))
  })
})
