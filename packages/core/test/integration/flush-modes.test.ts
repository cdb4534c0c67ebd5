import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createGraph, editGraph } from './fixtures/bookshop-scenario.ts'
import { BOOKSHOP_DDL } from './fixtures/bookshop-schema.ts'
import { dumpState } from './fixtures/dump.ts'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  for (const mode of modes) {
    await db.sql.unsafe(
      `create schema m_${mode}; set search_path = m_${mode}; ${BOOKSHOP_DDL}; reset search_path;`,
    )
  }
  const wide = Array.from(
    { length: 130 },
    (_, i) => `create table wide.w${i} (id bigserial primary key, v int not null);`,
  )
  await db.sql.unsafe(`create schema wide; ${wide.join('\n')}`)
})

/** A client on one connection, in the schema of `mode`, with a round-trip counter. */
async function setup(mode: PipelineMode, idBlockSize = 1000) {
  const { sql, counter } = db.connect({ max: 1, connection: { search_path: `m_${mode}` } })
  const root = await EntityManager.connect(sql, { pipeline: mode, versionColumn: 'version', idBlockSize })
  /** Waits until background work on the connection (statement warming) is done. */
  const idle = async () => {
    await sql`select 1`
  }
  return { sql, counter, root, idle }
}

describe('the same unit of work in every mode', () => {
  test('gives the identical database state (chains, self-reference, nullable and deferrable cycles, join table, composite keys)', async () => {
    const states: Record<string, unknown>[] = []
    for (const mode of modes) {
      const { root, sql } = await setup(mode)
      for (let salt = 1; salt <= 3; salt++) {
        await root.fork().flush() // empty: nothing sent
        const em = root.fork()
        createGraph(em, salt)
        const created = await em.flush()
        expect(created.inserted).toBe(22)
        expect(created.updated).toBe(0)
        const edit = root.fork()
        await editGraph(edit, salt)
        const edited = await edit.flush()
        expect(edited).toMatchObject({ updated: 4, deleted: 2 })
      }
      states.push(await dumpState(sql))
    }
    expect(states[0]).toMatchSnapshot()
    expect(states[1]).toEqual(states[0])
    expect(states[2]).toEqual(states[0])
  })
})

describe('round trips, counted at the socket', () => {
  test.each(modes)(
    '%s: exact and equal to report.roundTrips for a warm flush across 12 tables',
    async (mode) => {
      const { root, counter, idle } = await setup(mode)
      const run = async (salt: number) => {
        const em = root.fork()
        createGraph(em, 100 + salt)
        await idle()
        counter.reset()
        const create = await em.flush()
        const createCount = counter.read().roundTrips
        const edit = root.fork()
        await editGraph(edit, 100 + salt)
        await idle()
        counter.reset()
        const editReport = await edit.flush()
        return { create, createCount, edit: editReport, editCount: counter.read().roundTrips }
      }
      await run(1) // cold: prepares the statements, fills the id pool
      await run(2)
      const warm = await run(3)
      expect(warm.create.cold).toBe(false)
      expect(warm.create.idFetch).toBe(false)
      expect(warm.createCount).toBe(warm.create.roundTrips)
      expect(warm.editCount).toBe(warm.edit.roundTrips)
      const expected = (r: { statements: number; waves: number }) =>
        mode === 'burst' ? 1 : mode === 'waves' ? 2 + r.waves : 2 + r.statements
      expect(warm.create.roundTrips).toBe(expected(warm.create))
      expect(warm.edit.roundTrips).toBe(expected(warm.edit))
      expect(warm.create.statements).toBeGreaterThanOrEqual(12)
      if (mode === 'burst') {
        expect(warm.create.roundTrips).toBe(1)
        expect(warm.edit.roundTrips).toBe(1)
      }
    },
  )

  test('burst: +1 round trip when an id block must be fetched, and not after', async () => {
    const { root, counter, idle } = await setup('burst', 1)
    const em0 = root.fork()
    createGraph(em0, 200)
    await em0.flush() // warm the statements
    await idle()
    // The pool now holds what the first flush fetched beyond its need; three graphs need more.
    const em = root.fork()
    for (const salt of [201, 202, 203]) createGraph(em, salt)
    counter.reset()
    const report = await em.flush()
    expect(report.idFetch).toBe(true)
    expect(report.cold).toBe(false)
    expect(report.roundTrips).toBe(2)
    expect(counter.read().roundTrips).toBe(2)
    // ...and the block fetched then covers the next flush: one round trip again.
    await idle()
    const next = root.fork()
    createGraph(next, 204)
    counter.reset()
    const after = await next.flush()
    expect(after.idFetch).toBe(false)
    expect(counter.read().roundTrips).toBe(1)
  })

  test('burst: a flush on a fresh connection takes at most 2 round trips after connecting', async () => {
    const { sql: warmSql, root: warmRoot } = await setup('burst')
    const seed = warmRoot.fork()
    createGraph(seed, 300)
    await seed.flush()
    void warmSql
    // A new client: a new connection, nothing prepared; the schema is read before the counted flush.
    const { root, counter, sql } = await setup('burst')
    await sql`select 1` // the connection is open
    const em = root.fork()
    createGraph(em, 301)
    counter.reset()
    const report = await em.flush()
    expect(report.cold).toBe(true)
    expect(counter.read().roundTrips).toBe(report.roundTrips)
    expect(report.roundTrips).toBeLessThanOrEqual(2)
    // The next flush on the same connection is warm: the statements were prepared in the background.
    await sql`select 1`
    const em2 = root.fork()
    createGraph(em2, 302)
    counter.reset()
    const second = await em2.flush()
    expect(second.cold).toBe(false)
    expect(counter.read().roundTrips).toBe(second.roundTrips)
  })

  test('flushing with nothing to do costs no round trip', async () => {
    const { root, counter, idle } = await setup('burst')
    await idle()
    counter.reset()
    const report = await root.fork().flush()
    expect(report.roundTrips).toBe(0)
    expect(counter.read().writes).toBe(0)
  })

  test.each([
    [1000, 1],
    [100, 1],
  ])(
    '130 statements in one burst with max_pipeline %i: %i round trip (the overflow goes as one simple query)',
    async (maxPipeline, expected) => {
      const { sql, counter } = db.connect({
        max: 1,
        connection: { search_path: 'wide' },
        max_pipeline: maxPipeline,
      } as never)
      const root = await EntityManager.connect(sql, { idBlockSize: 1000 })
      const flush = async (salt: number) => {
        const em = root.fork()
        for (let i = 0; i < 130; i++) em.create(`w${i}`, { v: salt })
        return em.flush()
      }
      await flush(1)
      await flush(2) // prepared and warm now
      await sql`select 1`
      counter.reset()
      const report = await flush(3)
      expect(report.statements).toBe(130)
      expect(report.roundTrips).toBe(expected)
      expect(counter.read().roundTrips).toBe(expected)
    },
  )
})
