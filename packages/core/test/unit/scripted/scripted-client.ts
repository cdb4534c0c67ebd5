import { defineSchema, EntityManager, type EntityManagerOptions } from '@pipeflush/core'
import {
  createRoundTripCounter,
  type DriverName,
  openClient,
  type RoundTripCounter,
  type ScriptedHandler,
  type ScriptedServer,
  type ScriptedStatement,
  startScriptedServer,
} from '@pipeflush/testkit'

/**
 * The shapes the tests here flush and read: an author and their books (uuid keys, made client-side),
 * and a tally whose key a sequence fills.
 */
export const SCHEMA = defineSchema({
  author: { columns: { id: 'uuid', name: 'text' }, primaryKey: ['id'] },
  book: {
    columns: { id: 'uuid', author_id: 'uuid', title: 'text' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['author_id'], references: 'author' }],
  },
  tally: { columns: { id: { type: 'int8', identity: 'by default' }, n: 'int4' }, primaryKey: ['id'] },
})

/** Rows the server holds, by key. */
export const ROWS = {
  bo: { id: '0190a0b0-0000-7000-8000-000000000002', name: 'Bo' },
  cy: { id: '0190a0b0-0000-7000-8000-000000000003', name: 'Cy' },
  draft: {
    id: '0190a0b0-0000-7000-8000-000000000004',
    author_id: '0190a0b0-0000-7000-8000-000000000002',
    title: 'Draft',
  },
} as const

/** Whether a statement names `value` (in its text, where a simple-protocol statement has its values, or in its parameters). */
function names(s: ScriptedStatement, value: string): boolean {
  return s.text.includes(value) || s.params.some((p) => typeof p === 'string' && p.includes(value))
}

/**
 * Answers to what a flush and the reads here send: each insert `INSERT 0 1`, each update and delete
 * its row count (one row: what pipeflush checks), a select of authors the rows of {@link ROWS} it
 * names (by id or name), of books none.
 */
export function flushAnswers(): ScriptedHandler[] {
  const authors = [ROWS.bo, ROWS.cy]
  return [
    { match: /^insert into "public"\."(author|book|tally)"/, answer: { tag: 'INSERT 0 1' } },
    { match: /^with w as \((update|delete from) "public"\./, answer: { rows: [{ pipeflush_rows: 1 }] } },
    {
      match: /^select t0?\."id"::text as c0, t0?\."name"::text as c1 from "public"\."author"/,
      answer: (s) => ({
        columns: ['c0', 'c1'],
        rows: authors
          .filter((a) => names(s, a.id) || names(s, `'${a.name}'`) || s.params.includes(a.name))
          .map((a) => [a.id, a.name]),
      }),
    },
    {
      match:
        /^select t0\."id"::text as c0, t0\."author_id"::text as c1, t0\."title"::text as c2 from "public"\."book"/,
      answer: { columns: ['c0', 'c1', 'c2'], rows: [] },
    },
  ]
}

/** A driver as the tests here open it: postgres.js, a `pg.Pool` with `pipeline: true`, or one without. */
export type ScriptedDriver = Extract<DriverName, 'postgres.js' | 'pg' | 'pg-simple'>

/** A scripted server, a pool of one connection on it, and an entity manager on that pool. */
export interface Scripted {
  readonly server: ScriptedServer
  readonly root: EntityManager
  /** Counts round trips at the client's socket. */
  readonly counter: RoundTripCounter
  /** Opens the pool's connection with a read (nothing from it stays in the log) and resets the log. */
  warm(): Promise<void>
  close(): Promise<void>
}

/**
 * A scripted server answering {@link flushAnswers} (and `handlers` before them), a pool of one
 * connection of `driver` on it, and `EntityManager.connect(pool, { schema: SCHEMA, ...options })`.
 *
 * @example
 * const s = await scripted('pg', { pipeline: 'waves' })
 * await s.warm()
 * await flushSomething(s.root.fork())
 * s.server.log.messages // what the flush sent
 */
export async function scripted(
  driver: ScriptedDriver,
  options: EntityManagerOptions = {},
  handlers: readonly ScriptedHandler[] = [],
): Promise<Scripted> {
  const server = await startScriptedServer({ handlers: [...handlers, ...flushAnswers()] })
  const counter = createRoundTripCounter()
  // postgres.js waits before it reconnects after a lost connection (15-30 ms, more after a reset): at once here.
  const client = openClient(driver, server.url, counter, {
    max: 1,
    connectTimeoutSeconds: 2,
    postgresJs: { backoff: 0 },
  })
  const root = await EntityManager.connect(client.client, { schema: SCHEMA, ...options })
  return {
    server,
    root,
    counter,
    async warm() {
      await root.fork().find('book', { title: 'none' })
      server.log.reset()
      counter.reset()
    },
    async close() {
      await client.end()
      await server.close()
    },
  }
}
