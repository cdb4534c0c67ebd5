import { defineSchema, type Entity, EntityManager, PipeflushError } from '@pipeflush/core'
import postgres from 'postgres'
import { afterAll, describe, expect, test } from 'vitest'

// Every public method, fed bad keys, bad values and bad options, fails with a PipeflushError and
// nothing else: no TypeError from a JSON.stringify of a bigint, no RangeError from a String() of a
// symbol, no error thrown by the caller's own toString. postgres.js connects lazily and port 1 is
// closed: a call that gets as far as the database fails fast with CONNECTION_LOST, a PipeflushError.
const sql = postgres('postgres://nobody@127.0.0.1:1/none', { max: 1, connect_timeout: 1 })
afterAll(() => sql.end({ timeout: 0 }))

const schema = defineSchema({
  author: { columns: { id: 'int8', name: 'text', born: 'date' }, primaryKey: ['id'] },
  book: {
    columns: { id: 'uuid', author_id: 'int8', title: 'text', pages: 'int4', tags: 'text[]' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['author_id'], references: 'author' }],
  },
  pair: { columns: { a: 'int4', b: 'text', note: 'text' }, primaryKey: ['a', 'b'] },
})

const cyclic: Record<string, unknown> = {}
cyclic['self'] = cyclic
const hostile = {
  toString(): string {
    throw new Error('the caller’s toString ran')
  },
  valueOf(): number {
    throw new Error('the caller’s valueOf ran')
  },
  toJSON(): never {
    throw new Error('the caller’s toJSON ran')
  },
}

/** Values no column, key, table name or option accepts as they are (some are fine for some columns). */
const BAD: readonly [string, unknown][] = [
  ['undefined', undefined],
  ['null', null],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-0', -0],
  ['1.5', 1.5],
  ['2**64', 2 ** 64],
  ['a bigint', 10n],
  ['a huge bigint', 2n ** 70n],
  ['empty string', ''],
  ['a lone surrogate', 'a\ud800'],
  ['a NUL', 'a\u0000b'],
  ['a symbol', Symbol('s')],
  ['a function', () => 1],
  ['an object', {}],
  ['a null-prototype object', Object.create(null) as object],
  ['an array', []],
  ['a nested array', [[1], 'x']],
  ['a Map', new Map([[1, 2]])],
  ['a Set', new Set([1])],
  ['an invalid Date', new Date(Number.NaN)],
  ['bytes', new Uint8Array(2)],
  ['a cyclic object', cyclic],
  ['an object whose toString, valueOf and toJSON throw', hostile],
  ['a boxed string', Object('x') as object],
]

async function connect(options: Record<string, unknown> = {}): Promise<EntityManager> {
  return EntityManager.connect(sql, { schema, flushTimeoutMs: 2000, ...options })
}

/** Runs `fn`; whatever it throws or rejects with must be a PipeflushError. */
async function onlyPipeflushErrors(fn: () => unknown): Promise<void> {
  let thrown: unknown
  try {
    await fn()
    return
  } catch (e) {
    thrown = e
  }
  if (!(thrown instanceof PipeflushError)) {
    throw new Error(`expected a PipeflushError, got ${String(thrown)}`, { cause: thrown })
  }
  expect(typeof thrown.code).toBe('string')
  expect(thrown.message.length).toBeGreaterThan(10)
}

describe.each(BAD)('%s', (_label, bad) => {
  test('as an option of connect or fork', async () => {
    for (const name of [
      'pipeline',
      'flushTimeoutMs',
      'idBlockSize',
      'flushLog',
      'prepare',
      'schema',
      'schemas',
      'versionColumn',
      'serverValues',
      'hooks',
      'copyRows',
    ]) {
      await onlyPipeflushErrors(() => connect({ [name]: bad }))
    }
    for (const hook of ['beforeFlush', 'afterCommit', 'tables']) {
      await onlyPipeflushErrors(() => connect({ hooks: { [hook]: bad } }))
    }
    await onlyPipeflushErrors(() => connect({ hooks: { tables: { author: bad } } }))
    await onlyPipeflushErrors(() => connect({ hooks: { tables: { author: { beforeCreate: bad } } } }))
    await onlyPipeflushErrors(() => connect({ serverValues: { author: bad } }))
    await onlyPipeflushErrors(() => EntityManager.connect(sql, bad as never))
    await onlyPipeflushErrors(() => EntityManager.connect(bad))
    const em = await connect()
    await onlyPipeflushErrors(() => em.fork(bad as never))
    await onlyPipeflushErrors(() => em.fork({ pipeline: bad as never }))
    await onlyPipeflushErrors(() => em.fork({ flushTimeoutMs: bad as never }))
  })

  test('as a table, a column, a value or a key', async () => {
    const em = await connect()
    await onlyPipeflushErrors(() => em.create(bad as never, {}))
    await onlyPipeflushErrors(() => em.create('author', bad as never))
    for (const column of ['id', 'name', 'born']) {
      await onlyPipeflushErrors(() => em.create('author', { [column]: bad }))
    }
    for (const column of ['id', 'author_id', 'title', 'pages', 'tags']) {
      await onlyPipeflushErrors(() => em.create('book', { [column]: bad }))
    }
    const author = em.create('author', { name: 'Ada' })
    for (const column of ['id', 'name', 'born', 'nope']) {
      await onlyPipeflushErrors(() => {
        author[column] = bad
      })
    }
    await onlyPipeflushErrors(() => {
      ;(author as Record<PropertyKey, unknown>)[Symbol.for('x')] = bad
    })
    await onlyPipeflushErrors(() => em.find(bad as never))
    await onlyPipeflushErrors(() => em.find('author', bad as never))
    await onlyPipeflushErrors(() => em.find('author', { name: bad } as never))
    await onlyPipeflushErrors(() => em.find('author', { nope: bad } as never))
    await onlyPipeflushErrors(() => em.findOne('book', { tags: bad } as never))
    await onlyPipeflushErrors(() => em.load(bad as never, 1))
    await onlyPipeflushErrors(() => em.load('author', bad))
    await onlyPipeflushErrors(() => em.load('pair', bad))
    await onlyPipeflushErrors(() => em.load('pair', { a: bad, b: 'x' }))
    await onlyPipeflushErrors(() => em.merge(bad as never, {}))
    await onlyPipeflushErrors(() => em.merge('author', bad as never))
    await onlyPipeflushErrors(() => em.merge('author', { id: bad, name: 'x', born: null }))
    await onlyPipeflushErrors(() => em.merge('author', { id: 1, name: bad, born: null }))
    await onlyPipeflushErrors(() => em.upsert(bad as never, {}, { conflict: ['id'] }))
    await onlyPipeflushErrors(() => em.upsert('author', bad as never, { conflict: ['id'] }))
    await onlyPipeflushErrors(() => em.upsert('author', { id: 1, name: bad }, { conflict: ['id'] }))
    await onlyPipeflushErrors(() => em.upsert('author', { id: 1 }, bad as never))
    await onlyPipeflushErrors(() => em.upsert('author', { id: 1 }, { conflict: bad as never }))
    await onlyPipeflushErrors(() =>
      em.upsert('author', { id: 1 }, { conflict: ['id'], update: bad as never }),
    )
    await onlyPipeflushErrors(() => em.remove(bad as Entity))
    await onlyPipeflushErrors(() => em.tableOf(bad as Entity))
    await onlyPipeflushErrors(() => em.stateOf(bad))
    await onlyPipeflushErrors(() => em.wasCommitted(bad as never))
    await onlyPipeflushErrors(() => em.plan())
    await onlyPipeflushErrors(() => em.flush())
  })
})

test('an entity of another entity manager, or removed, is refused with a PipeflushError', async () => {
  const one = await connect()
  const other = await connect()
  const theirs = other.create('author', { name: 'Grace' })
  await onlyPipeflushErrors(() => one.remove(theirs))
  await onlyPipeflushErrors(() => one.tableOf(theirs))
  await onlyPipeflushErrors(() => one.create('book', { author_id: theirs }))
  const mine = one.create('author', { name: 'Ada' })
  one.remove(mine)
  await onlyPipeflushErrors(() => one.create('book', { author_id: mine }))
  await onlyPipeflushErrors(() => {
    mine['name'] = 'x'
  })
  expect(one.stateOf(mine)).toBe('detached')
})
