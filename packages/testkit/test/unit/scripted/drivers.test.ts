import pg from 'pg'
import postgres from 'postgres'
import { afterEach, expect, test } from 'vitest'
import { type ScriptedHandler, type ScriptedServer, startScriptedServer } from '../../../src/index.ts'

// Real clients of both drivers on the scripted peer: their startup, their own queries, pipelines.

const HANDLERS: ScriptedHandler[] = [
  {
    match: /^select name from author where id = \$1$/,
    answer: (s) => ({ rows: [{ name: `author ${s.params[0]}` }] }),
  },
  { match: /^insert into author/, answer: { tag: 'INSERT 0 1' } },
  {
    match: /^insert into dup/,
    answer: { error: { code: '23505', message: 'duplicate key', constraint: 'dup_pkey', table: 'dup' } },
  },
]

let server: ScriptedServer
afterEach(async () => {
  await server?.close()
})

test('postgres.js: its type fetch, a parameterized query described first, a pipelined transaction', async () => {
  server = await startScriptedServer({ handlers: HANDLERS })
  const sql = postgres(server.url, { max: 1, onnotice: () => {} })
  try {
    expect([...(await sql`select name from author where id = ${7}`)]).toEqual([{ name: 'author 7' }])
    const reserved = await sql.reserve()
    const answers = await Promise.allSettled([
      reserved.unsafe('begin'),
      reserved.unsafe('insert into author values (1)'),
      reserved.unsafe('insert into dup values (1)'),
      reserved.unsafe('insert into author values (2)'),
      reserved.unsafe('commit'),
    ])
    reserved.release()
    expect(
      answers.map((a) => (a.status === 'fulfilled' ? a.value.command : (a.reason as { code: string }).code)),
    ).toEqual(['BEGIN', 'INSERT', '23505', '25P02', 'ROLLBACK'])
    expect((answers[2] as PromiseRejectedResult).reason).toMatchObject({
      constraint_name: 'dup_pkey',
      table_name: 'dup',
    })
    const types = server.log.messages.filter((m) => m.type === 'Parse' && m.text?.includes('typarray'))
    expect(types).toHaveLength(1)
    expect(server.log.unanswered).toEqual([])
  } finally {
    await sql.end()
  }
})

test('node-postgres with pipeline: named statements parsed once, one Sync each, a round trip for all', async () => {
  server = await startScriptedServer({ handlers: HANDLERS })
  const pool = new pg.Pool({ connectionString: server.url, max: 1, pipeline: true })
  try {
    const c = await pool.connect()
    server.log.reset()
    const results = await Promise.allSettled([
      c.query('begin'),
      c.query({ name: 'a', text: 'select name from author where id = $1', values: ['1'] }),
      c.query({ name: 'a', text: 'select name from author where id = $1', values: ['2'] }),
      c.query({ text: 'insert into dup values ($1)', values: ['1'] }),
      c.query('commit'),
    ])
    c.release()
    expect(
      results.map((r) => (r.status === 'fulfilled' ? (r.value.rows[0]?.name ?? r.value.command) : 'failed')),
    ).toEqual(['BEGIN', 'author 1', 'author 2', 'failed', 'ROLLBACK'])
    const log = server.log.connection(1)!
    expect(log.roundTrips).toBe(1)
    expect(
      log.messages.filter((m) => m.type === 'Parse').map((m) => m.message.type === 'Parse' && m.message.name),
    ).toEqual(['a', ''])
    expect(log.messages.filter((m) => m.type === 'Sync')).toHaveLength(3)
  } finally {
    await pool.end()
  }
})
