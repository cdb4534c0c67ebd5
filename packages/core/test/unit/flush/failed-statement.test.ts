import { describe, expect, test } from 'vitest'
import { keysAtFault, rejectedStatement } from '../../../src/flush/failed-statement.ts'
import { defineSchema } from '../../../src/index.ts'
import type { PlannedStatement, StatementKind } from '../../../src/plan/types.ts'

/** A statement of `kind` on `table` writing `columns`, its rows' texts per column (`params`). */
function statement(
  kind: StatementKind,
  table: string,
  columns: string[],
  params: (string | null)[][],
  keys: unknown[] = [],
): PlannedStatement {
  return {
    kind,
    table,
    columns,
    sql: `${kind} ${table}`,
    params,
    rowCount: params[0]?.length ?? 1,
    keys,
    fixup: false,
  }
}

// t(id, name, email unique); u(id)
const rename = statement('update', 't', ['name'], [['1'], ['renamed']], [1])
const insertTwo = statement(
  'insert',
  't',
  ['id', 'name'],
  [
    ['2', '3'],
    ['a', 'b'],
  ],
)
const insertNine = statement('insert', 't', ['id', 'name', 'email'], [['9'], ['c'], ['c@x']])
const reEmail = statement('update', 't', ['email'], [['4'], ['d@x']], [4])
const removeT = statement('delete', 't', ['id'], [['5']])
const other = statement('insert', 'u', ['id'], [['2']])

describe('rejectedStatement', () => {
  test('the only statement on the table the server named; none when no statement is on it', () => {
    expect(rejectedStatement([other, rename], { table: 't' })).toBe(rename)
    expect(rejectedStatement([other, rename], { table: 'zzz' })).toBeUndefined()
    expect(
      rejectedStatement([undefined, statement('insert', 's.t', ['id'], [['1']])], { table: 't' })?.table,
    ).toBe('s.t')
  })

  // Bug: the server's schema was not read: of two tables of one name in two schemas, the first
  // statement on either was taken, and the error named the table that had no conflict.
  test('of two tables of one name, the one in the schema the server named', () => {
    const bare = statement('insert', 'alias', ['name'], [['acdc']])
    const qualified = statement('insert', 'music.alias', ['name'], [['acdc']])
    const detail = 'Key (name)=(acdc) already exists.'
    const facts = { sqlState: '23505', table: 'alias', detail }
    expect(rejectedStatement([bare, qualified], { ...facts, schema: 'music' })).toBe(qualified)
    expect(rejectedStatement([qualified, bare], { ...facts, schema: 'public' })).toBe(bare)
    // Without the schema (a server that names none), as before: either.
    expect(rejectedStatement([bare, qualified], facts)).toBe(bare)
  })

  test("a key taken: the insert holding the key's values, not an update of other columns before it", () => {
    const detail = 'Key (id)=(3) already exists.'
    expect(rejectedStatement([rename, removeT, insertNine, insertTwo], { table: 't', detail })).toBe(
      insertTwo,
    )
    // No insert holds it (a default the server drew): the first statement that could write the key.
    expect(
      rejectedStatement([rename, insertNine], { table: 't', detail: 'Key (id)=(77) already exists.' }),
    ).toBe(insertNine)
  })

  test('a unique value taken by an update setting it, beside an insert holding other values', () => {
    const detail = 'Key (email)=(d@x) already exists.'
    expect(rejectedStatement([insertNine, rename, reEmail], { table: 't', detail })).toBe(reEmail)
    expect(rejectedStatement([rename, reEmail], { table: 't', detail })).toBe(reEmail)
    // An update of a composite key's table: its parameters after the key's two parts.
    const pairKeyed = statement('update', 't', ['email'], [['4'], ['x'], ['d@x']], [[4, 'x']])
    expect(rejectedStatement([insertNine, pairKeyed], { table: 't', detail })).toBe(pairKeyed)
  })

  test('a composite key, quoted column names, and a foreign key not present', () => {
    const pair = statement(
      'insert',
      't',
      ['a b', 'n'],
      [
        ['x', 'y'],
        ['1', '2'],
      ],
    )
    const before = statement('insert', 't', ['a b'], [['z']])
    expect(
      rejectedStatement([rename, before, pair], {
        table: 't',
        detail: 'Key ("a b", n)=(y, 2) already exists.',
      }),
    ).toBe(pair)
    const child = statement('insert', 't', ['id', 'u_id'], [['1'], ['42']])
    const touch = statement('update', 't', ['name'], [['1'], ['n']])
    expect(
      rejectedStatement([touch, child], {
        table: 't',
        detail: 'Key (u_id)=(42) is not present in table "u".',
      }),
    ).toBe(child)
  })

  test('without a key in the detail, the statement writing the column named, else the first', () => {
    expect(rejectedStatement([insertTwo, reEmail], { table: 't', column: 'email' })).toBe(reEmail)
    expect(rejectedStatement([removeT, insertTwo], { table: 't', detail: 'Failing row contains (1).' })).toBe(
      removeT,
    )
  })

  test('a row still referenced: the delete holding its key, on another table than the one the server named', () => {
    // u's row 2 is referenced from t: the server names t, the delete of u failed.
    const detail = 'Key (id)=(2) is still referenced from table "t".'
    const removeU = statement('delete', 'u', ['id'], [['7', '2']])
    const removeOther = statement('delete', 'v', ['id'], [['8']])
    expect(rejectedStatement([insertNine, removeOther, removeU], { table: 't', detail })).toBe(removeU)
    // With a version column its value follows the key's parts; of deletes none holding the key, the first.
    const versioned = statement('delete', 'u', ['id', 'version'], [['2'], ['3']])
    expect(rejectedStatement([removeT, versioned], { table: 't', detail })).toBe(versioned)
    expect(
      rejectedStatement([insertNine, removeT, removeU], {
        table: 't',
        detail: 'Key (id)=(99) is still referenced from table "t".',
      }),
    ).toBe(removeT)
    // An update setting the referenced column (a unique key): it changed the row's key.
    const recode = statement('update', 'u', ['code'], [['1'], ['new']])
    expect(
      rejectedStatement([insertNine, rename, recode], {
        table: 't',
        detail: 'Key (code)=(old) is still referenced from table "t".',
      }),
    ).toBe(recode)
    // Nothing removed or rekeyed (not a statement of this message): as for other rejections.
    expect(rejectedStatement([insertNine], { table: 't', detail })).toBe(insertNine)
  })

  test("a row still referenced: the delete on the table the constraint references, when another table's holds the same key", () => {
    // An article deleted with its comments; a favorite added meanwhile references article 1, and
    // comment 1 is deleted in the same message: the server names favorite and its foreign key.
    const schema = defineSchema({
      article: { columns: { id: 'int4' }, primaryKey: ['id'] },
      comment: {
        columns: { id: 'int4', article_id: 'int4' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['article_id'], references: 'article' }],
      },
      favorite: {
        columns: { user_id: 'int4', article_id: 'int4' },
        primaryKey: ['user_id', 'article_id'],
        foreignKeys: [{ columns: ['article_id'], references: 'article' }],
      },
    })
    const removeComments = statement('delete', 'comment', ['id'], [['1', '2']])
    const removeArticle = statement('delete', 'article', ['id'], [['1']])
    const facts = {
      sqlState: '23503',
      schema: 'public',
      table: 'favorite',
      constraint: 'favorite_article_id_fkey',
      detail: 'Key (id)=(1) is still referenced from table "favorite".',
    }
    expect(rejectedStatement([removeComments, removeArticle], facts, schema)).toBe(removeArticle)
    // Without the schema (or a constraint it does not know), the first delete holding the key, as before.
    expect(rejectedStatement([removeComments, removeArticle], facts)).toBe(removeComments)
    expect(
      rejectedStatement([removeComments, removeArticle], { ...facts, constraint: 'other' }, schema),
    ).toBe(removeComments)
    // The referenced table's statement is not in the message: of the others, as before.
    expect(rejectedStatement([removeComments], facts, schema)).toBe(removeComments)
    // Its delete holds another key (a trigger of another delete removed article 1): as before, the
    // first holding the key, else the first (not the article's delete of article 2).
    const removeOtherArticle = statement('delete', 'article', ['id'], [['2']])
    const removeAudit = statement('delete', 'comment', ['id'], [['7']])
    expect(rejectedStatement([removeAudit, removeOtherArticle], facts, schema)).toBe(removeAudit)
  })
})

describe('rejectedStatement: a value refused, or nothing named', () => {
  test("a check or a data exception is an insert's or an update's, not a delete's before them", () => {
    const insertTen = statement('insert', 't', ['id', 'n'], [['10'], ['0']], [10])
    for (const sqlState of ['23514', '22003', '22P02'])
      expect(rejectedStatement([removeT, insertTen], { sqlState, table: 't' })).toBe(insertTen)
    // A trigger's exception may be any statement's: the first on the table, as before.
    expect(rejectedStatement([removeT, insertTen], { sqlState: 'P0001', table: 't' })).toBe(removeT)
  })

  test('a NULL refused: the statement with a NULL in that column, of several writing it', () => {
    const first = statement('insert', 'u', ['id', 'title'], [['1'], ['fine']], [1])
    const second = statement('insert', 'u', ['id', 'title', 'note'], [['2'], [null], ['x']], [2])
    expect(rejectedStatement([first, second], { sqlState: '23502', table: 'u', column: 'title' })).toBe(
      second,
    )
    const clear = statement('update', 'u', ['title'], [['3'], [null]], [3])
    expect(rejectedStatement([first, clear], { sqlState: '23502', table: 'u', column: 'title' })).toBe(clear)
  })

  test("a message's only statement, whatever the server named, unless another table", () => {
    expect(rejectedStatement([undefined, rename, undefined], {})).toBe(rename)
    expect(rejectedStatement([rename], { sqlState: '57014' })).toBe(rename)
    expect(rejectedStatement([rename], { table: 't' })).toBe(rename)
    // The flush log's insert (a text of its own, undefined here) failing on its table: not the statement.
    expect(rejectedStatement([undefined, rename], { table: 'pipeflush_flush_log' })).toBeUndefined()
  })
})

test('rejectedStatement: an ON CONFLICT no constraint matches is the upsert, the server naming no table', () => {
  const upsert: PlannedStatement = {
    ...statement('insert', 't', ['id', 'name'], [['7'], ['x']], [7]),
    upsert: { conflict: ['name'], update: [] },
  }
  expect(rejectedStatement([rename, upsert, other], { sqlState: '42P10' })).toBe(upsert)
})

// Bug: a statement of several rows rejected for one row gave every row's key in `keys`: of 50
// inserts, which one's email was taken could only be read from the server's detail.
describe('keysAtFault', () => {
  const three = statement(
    'insert',
    't',
    ['id', 'email', 'u_id'],
    [
      ['1', '2', '3'],
      ['a@x', 'b@x', null],
      ['7', '8', '8'],
    ],
    [1, 2, 3],
  )

  test('the rows holding the key the detail names: a duplicate, a missing reference', () => {
    expect(keysAtFault(three, { sqlState: '23505', detail: 'Key (email)=(b@x) already exists.' })).toEqual([
      2,
    ])
    const missing = 'Key (u_id)=(8) is not present in table "u".'
    expect(keysAtFault(three, { sqlState: '23503', detail: missing })).toEqual([2, 3])
    const pair = 'Key (id, email)=(1, a@x) already exists.'
    expect(keysAtFault(three, { sqlState: '23505', detail: pair })).toEqual([1])
  })

  test("an update's rows by its set columns, after its key's parameters", () => {
    const update = statement(
      'update',
      't',
      ['email'],
      [
        ['4', '5'],
        ['d@x', 'e@x'],
      ],
      [4, 5],
    )
    expect(keysAtFault(update, { sqlState: '23505', detail: 'Key (email)=(e@x) already exists.' })).toEqual([
      5,
    ])
  })

  test('a NULL refused: the rows with a NULL in the column named', () => {
    expect(keysAtFault(three, { sqlState: '23502', column: 'email' })).toEqual([3])
  })

  test("every row's key when none can be told apart, or none holds the key", () => {
    expect(keysAtFault(three, { sqlState: '23514', detail: 'Failing row contains (1, a@x, 7).' })).toEqual([
      1, 2, 3,
    ])
    expect(keysAtFault(three, { sqlState: '23505', detail: 'Key (email)=(z@x) already exists.' })).toEqual([
      1, 2, 3,
    ])
    expect(
      keysAtFault(three, { sqlState: '23505', detail: 'Key (lower(email))=(a@x) already exists.' }),
    ).toEqual([1, 2, 3])
    expect(keysAtFault(three, { sqlState: '23505' })).toEqual([1, 2, 3])
  })
})
