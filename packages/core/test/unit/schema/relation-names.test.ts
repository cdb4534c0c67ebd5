import { describe, expect, it } from 'vitest'
import type { SchemaModel } from '../../../src/model/model.ts'
import type { CatalogColumn, CatalogForeignKey, CatalogTable } from '../../../src/schema/catalog-rows.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { pickNames } from '../../../src/schema/pick-names.ts'
import { readSchema } from '../../../src/schema/read-schema.ts'
import { columnStem } from '../../../src/schema/relation-candidates.ts'
import { relationsOf } from '../../../src/schema/relations.ts'
import { describeRelations, FORUM_RELATIONS } from '../../fixtures/forum-relations.ts'

// The naming rules on rows shaped as pg_catalog answers them (readSchema on a stub driver): a forum
// with a plural table (people), a self-reference (post.reply_to_id), a self many-to-many
// (follow(follower_id, followee_id)), a table keyed by its foreign key (thread_stat), camelCase
// columns and a table of another schema (forum_meta.counter). The same rows in another order, with
// other constraint names, must give the same relations.

function column(name: string, nullable = false): CatalogColumn {
  return {
    name,
    qualifiedType: name === 'name' || name === 'body' ? 'text' : 'int8',
    qualifiedElemType: null,
    isDomain: false,
    baseSchema: 'pg_catalog',
    baseName: name === 'name' || name === 'body' ? 'text' : 'int8',
    baseTyptype: 'b',
    typmod: -1,
    isArray: false,
    delimiter: ',',
    nullable,
    hasDefault: false,
    identity: '',
    generated: '',
    sequence: null,
    sequenceUsable: null,
    enumLabels: null,
  }
}

function fk(name: string, columns: string[], target: string, targetSchema = 'public'): CatalogForeignKey {
  return {
    name,
    columns,
    targetSchema,
    targetName: target,
    targetColumns: columns.map(() => 'id'),
    deferrable: false,
    initiallyDeferred: false,
    onDelete: 'a',
  }
}

function table(
  name: string,
  columns: string[],
  primaryKey: string[],
  foreignKeys: CatalogForeignKey[],
  schema = 'public',
): CatalogTable {
  return {
    schema,
    name,
    kind: 'r',
    columns: columns.map((c) => column(c)),
    primary_key: primaryKey,
    foreign_keys: foreignKeys,
    partitions: null,
    uniques: [],
    copy_refused: false,
    select_denied: false,
  }
}

/** The forum's catalog rows; `names` gives each foreign key its constraint name. */
function forum(names: (table: string, column: string) => string): CatalogTable[] {
  const key = (t: string, c: string, target: string, schema?: string) => fk(names(t, c), [c], target, schema)
  return [
    table('board', ['id', 'name'], ['id'], []),
    table('people', ['id', 'name', 'boardId'], ['id'], [key('people', 'boardId', 'board')]),
    table('thread', ['id', 'board_id', 'name'], ['id'], [key('thread', 'board_id', 'board')]),
    table(
      'post',
      ['id', 'threadId', 'author_id', 'reply_to_id', 'body'],
      ['id'],
      [
        key('post', 'threadId', 'thread'),
        key('post', 'author_id', 'people'),
        key('post', 'reply_to_id', 'post'),
      ],
    ),
    table(
      'follow',
      ['follower_id', 'followee_id'],
      ['follower_id', 'followee_id'],
      [key('follow', 'follower_id', 'people'), key('follow', 'followee_id', 'people')],
    ),
    table('thread_stat', ['threadId', 'posts'], ['threadId'], [key('thread_stat', 'threadId', 'thread')]),
    table(
      'counter',
      ['id', 'board_id', 'visits'],
      ['id'],
      [key('counter', 'board_id', 'board')],
      'forum_meta',
    ),
  ]
}

/** readSchema on a driver answering `rows` as the catalog. */
function read(rows: CatalogTable[], relationNames?: Record<string, string>): Promise<SchemaModel> {
  const driver = {
    toDriverError: (e: unknown) => e,
    async query(text: string) {
      if (text.includes('current_schema()'))
        return [{ current: 'public', schemas: '["public","forum_meta"]', datestyle: 'ISO, MDY', efd: 1 }]
      return [{ catalog: JSON.stringify(rows) }]
    },
  }
  return readSchema(driver, relationNames === undefined ? {} : { relationNames })
}

describe('relation names from catalog rows', () => {
  it('are the documented ones, whatever order the catalog lists tables and foreign keys in', async () => {
    const inOrder = await read(forum((t, c) => `${t}_${c}_fkey`))
    // Tables and keys in reverse order, and other constraint names.
    const reversed = forum((t, c) => `${c}_of_${t}`)
      .reverse()
      .map((t) => ({ ...t, foreign_keys: [...t.foreign_keys].reverse() }))
    const other = await read(reversed)
    expect(describeRelations(inOrder)).toEqual(FORUM_RELATIONS)
    expect(describeRelations(other)).toEqual(describeRelations(inOrder))
    for (const key of inOrder.tables.keys()) {
      const strip = (s: SchemaModel) => [...relationsOf(s, key).values()].map(({ foreignKey: _, ...r }) => r)
      expect(strip(other)).toEqual(strip(inOrder))
    }
  })

  it('make a table keyed by its foreign key one-to-one, and the followers those whose followee is me', async () => {
    const schema = await read(forum((t, c) => `${t}_${c}_fkey`))
    expect(relationsOf(schema, 'thread').get('thread_stat')).toMatchObject({
      kind: 'one-to-one',
      columns: ['id'],
      targetColumns: ['threadId'],
    })
    expect(relationsOf(schema, 'people').get('followers')).toMatchObject({
      columns: ['id'],
      targetColumns: ['id'],
      through: { table: 'follow', columns: ['followee_id'], targetColumns: ['follower_id'] },
    })
    expect(relationsOf(schema, 'people').get('followees')?.through).toMatchObject({
      columns: ['follower_id'],
      targetColumns: ['followee_id'],
    })
    expect(relationsOf(schema, 'post').get('posts_by_reply_to')).toMatchObject({
      columns: ['id'],
      targetColumns: ['reply_to_id'],
    })
  })

  it('are renamed by relationNames as docs/reads.md shows, a table of another schema by its key', async () => {
    const schema = await read(
      forum((t, c) => `${t}_${c}_fkey`),
      {
        'post.posts_by_reply_to': 'replies',
        'people.followees': 'following',
        'forum_meta.counter.board': 'forum',
      },
    )
    expect(describeRelations(schema)).toMatchObject({
      post: { replies: 'one-to-many post' },
      people: { following: 'many-to-many people through follow.followee_id' },
      'forum_meta.counter': { forum: 'many-to-one board' },
    })
    expect([...relationsOf(schema, 'people').keys()]).toEqual([
      'board',
      'followers',
      'following',
      'follows_by_followee',
      'follows_by_follower',
      'posts',
    ])
  })
})

describe('relation names from declared schemas', () => {
  const people = { columns: { id: 'int8' }, primaryKey: ['id'] } as const

  // `await` reads `then` on whatever a read resolves to: a relation so named, not loaded, would
  // refuse the read of every entity of its table.
  it('never name a relation then: a then_id column takes its next name, and relationNames cannot give it', () => {
    const step = {
      columns: { id: 'int8', then_id: 'int8' },
      primaryKey: ['id'],
      foreignKeys: [{ columns: ['then_id'], references: 'step' }],
    } as const
    const schema = defineSchema({ step })
    expect([...relationsOf(schema, 'step').keys()]).toEqual(['step', 'steps_by_then'])
    expect(relationsOf(schema, 'step').get('step')).toMatchObject({
      kind: 'many-to-one',
      columns: ['then_id'],
    })
    expect(() => defineSchema({ step }, { relationNames: { 'step.step': 'then' } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('cannot be "then"'),
      }),
    )
  })

  // The options of a `with` level start with `$` (`$where`, `$count`...): a relation so named could
  // not be loaded by `with`.
  it('never name a relation with a leading $: a $where_id column, a $count table and keys so named take their next names', () => {
    const schema = defineSchema({
      account: { columns: { id: 'int8' }, primaryKey: ['id'] },
      item: {
        columns: { id: 'int8', $where_id: 'int8' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['$where_id'], references: 'account' }],
      },
      $count: {
        columns: { id: 'int8', account_id: 'int8' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['account_id'], references: 'account' }],
      },
      $pair: {
        columns: { a: 'int8', b: 'int8' },
        primaryKey: ['a', 'b'],
        foreignKeys: [
          { columns: ['a'], references: 'account' },
          { columns: ['b'], references: 'account' },
        ],
      },
    })
    const names = [...schema.tables.keys()].flatMap((t) => [...relationsOf(schema, t).keys()])
    expect(names.filter((n) => n.startsWith('$'))).toEqual([])
    expect(relationsOf(schema, 'item').get('account')).toMatchObject({
      kind: 'many-to-one',
      columns: ['$where_id'],
    })
    // The last resort, numbered, leaves the sign out too.
    expect(
      pickNames(
        [
          { candidates: ['$count'], identity: 'a' },
          { candidates: ['$count'], identity: 'b' },
        ],
        new Set(),
      ),
    ).toEqual(['count_2', 'count_3'])
    expect(() =>
      defineSchema(
        {
          account: { columns: { id: 'int8' }, primaryKey: ['id'] },
          item: {
            columns: { id: 'int8', account_id: 'int8' },
            primaryKey: ['id'],
            foreignKeys: [{ columns: ['account_id'], references: 'account' }],
          },
        },
        { relationNames: { 'item.account': '$where' } },
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('cannot be "$where"'),
      }),
    )
  })

  it('make a table with a unique constraint on its foreign key one-to-one', () => {
    const schema = defineSchema({
      person: people,
      profile: {
        columns: { id: 'int8', person_id: 'int8' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['person_id'], references: 'person' }],
        uniques: [['person_id']],
      },
    })
    expect(relationsOf(schema, 'person').get('profile')?.kind).toBe('one-to-one')
    expect(relationsOf(schema, 'profile').get('person')?.kind).toBe('many-to-one')
  })

  it('name many-to-manys after the far column when several link tables join the same two tables', () => {
    const link = (far: string) =>
      ({
        columns: { book_id: 'int8', [far]: 'int8' },
        primaryKey: ['book_id', far],
        foreignKeys: [
          { columns: ['book_id'], references: 'book' },
          { columns: [far], references: 'person' },
        ],
      }) as const
    const schema = defineSchema({
      person: people,
      book: { columns: { id: 'int8' }, primaryKey: ['id'] },
      book_author: link('writer_id'),
      book_editor: link('editor_id'),
    } as never)
    expect(Object.keys(Object.fromEntries(relationsOf(schema, 'book')))).toEqual([
      'book_authors',
      'book_editors',
      'editors',
      'writers',
    ])
    expect([...relationsOf(schema, 'person').keys()]).toEqual([
      'book_authors',
      'book_editors',
      'books_by_book_author',
      'books_by_book_editor',
    ])
  })

  it('give a name two relations want to neither: tables of one name in two schemas', () => {
    const counter = (schema: string) =>
      ({
        schema,
        name: 'counter',
        columns: { id: 'int8', board_id: 'int8' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['board_id'], references: 'board' }],
      }) as const
    const schema = defineSchema({
      board: { columns: { id: 'int8', threads: 'int4' }, primaryKey: ['id'] },
      counter: counter('public'),
      'forum_meta.counter': counter('forum_meta'),
      thread: {
        columns: { id: 'int8', board_id: 'int8' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['board_id'], references: 'board' }],
      },
    } as never)
    expect([...relationsOf(schema, 'board').keys()]).toEqual([
      'forum_meta_counters_by_board',
      'public_counters_by_board',
      'threads_by_board', // board has a column named threads
    ])
  })
})

describe('the parts', () => {
  it('columnStem strips _id (any case) and camelCase Id', () => {
    expect(
      ['reply_to_id', 'threadId', 'AUTHOR_ID', 'ownerID', 'publisher', 'paid', 'id'].map(columnStem),
    ).toEqual(['reply_to', 'thread', 'AUTHOR', 'owner', undefined, undefined, undefined])
  })

  it('pickNames: the same names in any order; a contested name to none; numbered at the end', () => {
    const wishes = [
      { candidates: ['a', 'a_by_x'], identity: '1' },
      { candidates: ['a', 'a_by_y'], identity: '2' },
      { candidates: ['b', 'a'], identity: '3' },
      { candidates: ['title', 'c'], identity: '4' },
      { candidates: ['d'], identity: '6' },
      { candidates: ['d'], identity: '5' },
    ]
    const taken = new Set(['title'])
    const names = pickNames(wishes, taken)
    expect(names).toEqual(['a_by_x', 'a_by_y', 'b', 'c', 'd_3', 'd_2'])
    expect(pickNames([...wishes].reverse(), taken)).toEqual([...names].reverse())
  })
})
