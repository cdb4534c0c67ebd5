import { defineSchema, EntityManager } from '@pipeflush/core'
import pg from 'pg'
import { describe, expect, test } from 'vitest'

/** The message `work` rejects with. */
async function messageOf(work: () => Promise<unknown>): Promise<string> {
  const error = await work().catch((e: unknown) => e)
  return error instanceof Error ? error.message : `no error: ${String(error)}`
}

const schema = defineSchema({ author: { columns: { id: 'int8' }, primaryKey: ['id'] } })

describe('connect: what is not a client, named before any query', () => {
  test('no client at all says so, and what to pass', async () => {
    expect(await messageOf(() => EntityManager.connect(undefined, { schema }))).toMatch(
      /^No client was given \(undefined\)\. Pass a postgres\.js client /,
    )
  })

  test('a value of another kind, and a single pg.Client, are named', async () => {
    expect(await messageOf(() => EntityManager.connect('postgres://x', { schema }))).toMatch(
      /^A string is not a client pipeflush can use\. /,
    )
    expect(await messageOf(() => EntityManager.connect(new pg.Client(), { schema }))).toMatch(
      /^A Client is not a client pipeflush can use\. .*a single pg\.Client is not a pool/,
    )
  })
})

describe('an unknown table says where the tables come from', () => {
  test('of a schema with tables: which it knows, and how another comes in', async () => {
    const em = await EntityManager.connect(new pg.Pool({ port: 1 }), { schema, prefetchIds: false })
    expect(() => em.create('late', {})).toThrowError(
      /^Unknown table "late" \(known: author\)\. The tables are those read at connect, .* a table created since is known once the catalog is read again .*, one in another schema the `schemas` option\.$/,
    )
  })

  test('of a schema without tables: the database or the declaration to check', async () => {
    const em = await EntityManager.connect(new pg.Pool({ port: 1 }), {
      schema: defineSchema({}),
      prefetchIds: false,
    })
    expect(() => em.create('book', {})).toThrowError(
      /^Unknown table "book": the schema holds no tables \(is the connection's database the one the tables are in\?/,
    )
  })
})
