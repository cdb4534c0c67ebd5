import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import pg from 'pg'
import { beforeAll, describe, expect, test } from 'vitest'

// pipeflush selects every column it reads as text, and the client parses each answer as it parses
// the application's: a parser for the type text (pg's `types`, postgres.js's `types`) or a postgres.js
// `transform.value.from` that changes texts made reads wrong (a trim loaded '  padded  ' as 'padded',
// and the unchanged row then looked changed), or connect fail saying the session lacked a setting it
// had (found by an outside probe). Such a client is refused at connect, naming the cause; one that
// leaves texts as they are works as before.

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table parsed_note (id int primary key, body text not null, n int8 not null);
    insert into parsed_note values (1, '  padded  ', 5);
  `)
})

const trim = (v: unknown) => (typeof v === 'string' ? v.trim() : v)
const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v)

/** pg's types with `text` parsed by `parse`, every other type as pg parses it. */
function pgTypes(parse: (text: string) => unknown) {
  return {
    getTypeParser: (oid: number, format?: string) =>
      oid === 25 ? parse : pg.types.getTypeParser(oid, format as 'text'),
  }
}

/** Connect's refusal on `client`, or undefined when it connected. */
async function refusal(client: unknown): Promise<unknown> {
  return EntityManager.connect(client as pg.Pool).then(
    () => undefined,
    (e: unknown) => e,
  )
}

describe('a client whose parsing changes texts: INVALID_CONFIG at connect, naming it', () => {
  test.each([
    [
      'pg, a text parser that trims',
      'pg',
      { types: pgTypes(trim) },
      /parser for the type text.*" {2}padded {2}" to "padded"/,
    ],
    [
      'pg, a text parser that upper-cases',
      'pg',
      { types: pgTypes(upper) },
      /parser for the type text.*"x" to "X"/,
    ],
    [
      'postgres.js, transform.value.from trimming',
      'postgres.js',
      { transform: { value: { from: trim } } },
      /transform\.value\.from.*" {2}padded {2}" to "padded"/,
    ],
    [
      'postgres.js, a parser for text in its types',
      'postgres.js',
      { types: { upper: { to: 25, from: [25], serialize: String, parse: upper } } },
      /parser for the type text \(its `types` option\) changes the text "x" to "X"/,
    ],
  ] as const)('%s', async (_, driver, options, said) => {
    const { client } = db.client(driver, {
      proxied: false,
      ...(driver === 'pg' ? { pg: options } : { postgresJs: options }),
    })
    const error = await refusal(client)
    expect(isPipeflushError(error, 'INVALID_CONFIG'), String(error)).toBe(true)
    expect((error as Error).message).toMatch(said)
  })
})

describe('a client whose parsing leaves texts as they are: reads and change checks as without', () => {
  test.each([
    ['pg, an int8 parser of its own', 'pg', { types: pgTypes((text) => text) }],
    [
      'postgres.js, transform.value.from mapping null to undefined',
      'postgres.js',
      { transform: { value: { from: (v: unknown) => v ?? undefined } } },
    ],
  ] as const)('%s', async (_, driver, options) => {
    const { client } = db.client(driver, {
      proxied: false,
      ...(driver === 'pg' ? { pg: options } : { postgresJs: options }),
    })
    const em = (await EntityManager.connect(client as pg.Pool)).fork()
    const note = await em.load('parsed_note', 1)
    expect(note['body']).toBe('  padded  ')
    note['body'] = '  padded  '
    expect(em.pending.updates).toBe(0)
    const report = await em.flush()
    expect(report.roundTrips).toBe(0)
  })
})
