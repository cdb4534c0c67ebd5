import { defineSchema, PipeflushError } from '@pipeflush/core'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { CamelCasePlugin, Kysely, ParseJSONResultsPlugin } from 'kysely'
import { PostgresJSDialect } from 'kysely-postgres-js'
import postgres from 'postgres'
import { afterAll, describe, expect, test } from 'vitest'

// postgres.js connects lazily and port 1 is closed: nothing here reaches a database.
const sql = postgres('postgres://nobody@127.0.0.1:1/none', { max: 1 })
afterAll(() => sql.end({ timeout: 0 }))
const schema = defineSchema({ author: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })

async function code(fn: () => unknown): Promise<string> {
  try {
    await fn()
  } catch (e) {
    if (e instanceof PipeflushError) return e.code
    throw new Error(`expected a PipeflushError, got ${String(e)}`, { cause: e })
  }
  throw new Error('expected an error')
}

describe('the factory refuses bad options with INVALID_CONFIG before any query', () => {
  test.each([
    ['null options', null],
    ['a number', 5],
    ['no client', { schema }],
    ['a db that is not a Kysely', { client: sql, schema, db: {} }],
    ['a bad pipeline', { client: sql, schema, pipeline: 'fast' }],
  ])('%s', async (_label, options) => {
    expect(await code(() => createEntityManagerFactory(options as never))).toBe('INVALID_CONFIG')
  })

  // A Kysely with CamelCasePlugin is read with its names (see integration camel-case.test.ts): not
  // beside a schema given, which is not read, nor with a plugin of that name whose mapping cannot be called.
  test("a Kysely with CamelCasePlugin (or one extending it, or another copy's) beside a schema given, or without a mapping to call", async () => {
    const db = new Kysely({
      dialect: new PostgresJSDialect({ postgres: sql }),
      plugins: [new CamelCasePlugin()],
    })
    class Mapped extends CamelCasePlugin {}
    /** A plugin of another copy of Kysely: a class of that name, not this copy's. */
    const OtherCopy = { CamelCasePlugin: class CamelCasePlugin {} }.CamelCasePlugin
    for (const plugins of [[new CamelCasePlugin()], [new Mapped()], [new OtherCopy()]]) {
      const error = await Promise.resolve(
        createEntityManagerFactory({
          client: sql,
          schema,
          db: db.withoutPlugins().withPlugin(plugins[0] as never),
        }),
      ).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(PipeflushError)
      expect((error as PipeflushError).code).toBe('INVALID_CONFIG')
      expect((error as Error).message).toMatch(/CamelCasePlugin/)
    }
    // With names of its own: one mapping or the other.
    const both = await Promise.resolve(
      createEntityManagerFactory({ client: sql, db, names: (n: string) => n }),
    ).catch((e: unknown) => e)
    expect([(both as PipeflushError).code, (both as Error).message]).toEqual([
      'INVALID_CONFIG',
      expect.stringContaining('leave `names` out'),
    ])
    // Another plugin is fine (with a schema given, the factory asks the database nothing).
    const other = await createEntityManagerFactory({
      client: sql,
      schema,
      db: db.withoutPlugins().withPlugin(new ParseJSONResultsPlugin()),
    })
    expect(other.db).toBeDefined()
  })

  test('no client: the message names the option', async () => {
    const error = await Promise.resolve(createEntityManagerFactory({ schema } as never)).catch(
      (e: unknown) => e,
    )
    expect((error as Error).message).toBe(
      "createEntityManagerFactory: no client: give the application's pool as `client` (a postgres.js client or a pg.Pool), with `db` its Kysely.",
    )
  })

  test('run() checks its work and options before running the work', async () => {
    const factory = await createEntityManagerFactory<{ author: { id: string; name: string } }>({
      client: sql,
      schema,
    })
    let ran = 0
    const work = (): void => {
      ran++
    }
    for (const options of [
      null,
      { retries: -1 },
      { retries: 1.5 },
      { retries: 'x' },
      { backoffMs: -1 },
      { backoffMs: Number.NaN },
      { pipeline: 'x' },
    ]) {
      expect(await code(() => factory.run(work, options as never))).toBe('INVALID_CONFIG')
    }
    expect(await code(() => factory.run('work' as never))).toBe('INVALID_CONFIG')
    expect(await code(() => factory.em({ pipeline: 'x' as never }))).toBe('INVALID_CONFIG')
    expect(ran).toBe(0)
  })
})
