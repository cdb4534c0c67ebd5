import { EntityManager, type FlushReport, type PipelineMode } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createGraph, editGraph } from './fixtures/bookshop-scenario.ts'
import { BOOKSHOP_DDL } from './fixtures/bookshop-schema.ts'
import { counted } from './fixtures/counted.ts'
import { dumpState } from './fixtures/dump.ts'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
/** Both drivers, and node-postgres without its pipeline mode (flushes then go as simple-protocol text). */
const drivers: DriverName[] = [...TEST_DRIVERS, 'pg-simple']

beforeAll(async () => {
  for (const driver of drivers) {
    for (const mode of modes) {
      await db.sql.unsafe(
        `create schema "${schemaOf(driver, mode)}"; set search_path = "${schemaOf(driver, mode)}"; ${BOOKSHOP_DDL}; reset search_path;`,
      )
    }
  }
  const wide = Array.from(
    { length: 130 },
    (_, i) => `create table wide.w${i} (id bigserial primary key, v int not null);`,
  )
  await db.sql.unsafe(`create schema wide; ${wide.join('\n')}`)
})

function schemaOf(driver: DriverName, mode: PipelineMode): string {
  return `m_${driver.replace(/[^a-z]/g, '')}_${mode}`
}

/** A client of `driver` whose connections use `schema`, with a round-trip counter. */
function open(driver: DriverName, schema: string, max = 1) {
  return db.client(driver, {
    max,
    postgresJs: { connection: { search_path: schema } },
    pg: { options: `-c search_path=${schema}` },
  })
}

/** A root entity manager on one connection in the schema of (driver, mode). */
async function setup(driver: DriverName, mode: PipelineMode, idBlockSize = 1000) {
  const c = open(driver, schemaOf(driver, mode))
  const root = await EntityManager.connect(c.client, {
    pipeline: mode,
    versionColumn: 'version',
    idBlockSize,
  })
  return { ...c, root }
}

/** Four flushes started at once, each of a graph made with salt `salt + i`; their reports. */
/**
 * Waits until the pool's sockets are quiet (no round trip for 100 ms, at most 3 s): a connection
 * postgres.js began opening for a flush of one round, and still opening when that round's flushes
 * are over, is that round's, not the next one's to count.
 */
async function quiet(counter: { read(): { roundTrips: number } }): Promise<void> {
  const until = performance.now() + 3_000
  let last = -1
  while (performance.now() < until) {
    const now = counter.read().roundTrips
    if (now === last) return
    last = now
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function fourAtOnce(root: EntityManager, salt: number): Promise<FlushReport[]> {
  return Promise.all(
    [0, 1, 2, 3].map((i) => {
      const em = root.fork()
      createGraph(em, salt + i)
      return em.flush()
    }),
  )
}

describe.each(drivers)('%s', (driver) => {
  test('the same unit of work gives the identical database state in every mode (chains, self-reference, nullable and deferrable cycles, join table, composite keys)', async () => {
    const states: Record<string, unknown>[] = []
    for (const mode of modes) {
      const { root, query } = await setup(driver, mode)
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
      states.push(await dumpState(query))
    }
    expect(states[0]).toMatchSnapshot()
    expect(states[1]).toEqual(states[0])
    expect(states[2]).toEqual(states[0])
  })

  test.each(modes)(
    '%s: round trips exact and equal to the socket count, warm and on new statement shapes, across 12 tables',
    async (mode) => {
      const { root, counter } = await setup(driver, mode)
      const expected = (r: FlushReport) =>
        mode === 'burst' ? 1 : mode === 'waves' ? 2 + r.waves : 2 + r.statements
      for (let salt = 1; salt <= 3; salt++) {
        // Salt 1 sends statement shapes new to the connection: they cost no extra trip (and the ids
        // were fetched when connecting).
        const em = root.fork()
        createGraph(em, 100 + salt)
        const create = await counted(counter, () => em.flush())
        expect(create.roundTrips).toBe(expected(create))
        expect(create.idFetch).toBe(false)
        expect(create.statements).toBeGreaterThanOrEqual(12)
        const edit = root.fork()
        await editGraph(edit, 100 + salt)
        const edited = await counted(counter, () => edit.flush())
        expect(edited.roundTrips).toBe(expected(edited))
        if (mode === 'burst') expect([create.roundTrips, edited.roundTrips]).toEqual([1, 1])
      }
    },
  )

  test('burst: +1 round trip when an id block must be fetched, and not after', async () => {
    const { root, counter } = await setup(driver, 'burst', 1)
    const em0 = root.fork()
    createGraph(em0, 200)
    await em0.flush()
    // The pool now holds what the first flush fetched beyond its need; three graphs need more.
    const em = root.fork()
    for (const salt of [201, 202, 203]) createGraph(em, salt)
    const report = await counted(counter, () => em.flush())
    expect(report.idFetch).toBe(true)
    expect(report.roundTrips).toBe(2)
    // ...and the block fetched then covers the next flush: one round trip again.
    const next = root.fork()
    createGraph(next, 204)
    const after = await counted(counter, () => next.flush())
    expect(after.idFetch).toBe(false)
    expect(after.roundTrips).toBe(1)
  })

  test('burst from a fresh pool: the report counts opening the connection, the id fetch and the flush, as the socket does', async () => {
    const { root: warmRoot } = await setup(driver, 'burst')
    const schema = schemaOf(driver, 'burst')
    const fresh = open(driver, schema)
    // A declared schema and prepare: true: connecting costs no query, so the flush opens the connection.
    const root = await EntityManager.connect(fresh.client, { schema: warmRoot.schema, prepare: true })
    const em = root.fork()
    createGraph(em, 300)
    const report = await counted(fresh.counter, () => em.flush())
    expect(report.connected).toBe(true)
    expect(report.idFetch).toBe(true)
    expect(report.connectRoundTrips).toBeGreaterThanOrEqual(1)
    expect(report.roundTrips).toBe(report.connectRoundTrips + 2)
    const em2 = root.fork()
    createGraph(em2, 301)
    const second = await counted(fresh.counter, () => em2.flush())
    expect(second).toMatchObject({ connected: false, connectRoundTrips: 0, roundTrips: 1 })
  })

  test('burst, four flushes at a time from a fresh pool of 10: every report equals its socket count, in sum', async () => {
    const { root: warmRoot } = await setup(driver, 'burst')
    const fresh = open(driver, schemaOf(driver, 'burst'), 10)
    const root = await EntityManager.connect(fresh.client, {
      schema: warmRoot.schema,
      prepare: true,
      idBlockSize: 1000,
    })
    for (let round = 0; round < 3; round++) {
      if (round > 0) await quiet(fresh.counter)
      fresh.counter.reset()
      const reports = await fourAtOnce(root, 400 + round * 10)
      const sum = reports.reduce((n, r) => n + r.roundTrips, 0)
      expect(fresh.counter.read().roundTrips, `round ${round}`).toBe(sum)
      if (round === 0) expect(reports.filter((r) => r.connected).length).toBeGreaterThanOrEqual(1)
      else for (const r of reports) expect(r.roundTrips - (r.idFetch ? 1 : 0) - r.connectRoundTrips).toBe(1)
    }
  })

  test('four flushes at once right after connecting a fresh pool of 4 (connect opened one connection), every mode, three rounds: the reports sum to the socket count', async () => {
    for (const mode of modes) {
      const fresh = open(driver, schemaOf(driver, 'burst'), 4)
      // Reads the schema and fills the id pool on one connection: the flushes find it idle and open
      // the others. postgres.js hands a waiting flush whichever connection is free first, so some
      // openings serve another flush or none: each is counted by a flush that waited while it began.
      const root = await EntityManager.connect(fresh.client, {
        pipeline: mode,
        versionColumn: 'version',
        idBlockSize: 1000,
      })
      for (let round = 0; round < 3; round++) {
        fresh.counter.reset()
        const reports = await fourAtOnce(root, 600 + modes.indexOf(mode) * 100 + round * 10)
        const sum = reports.reduce((n, r) => n + r.roundTrips, 0)
        expect(fresh.counter.read().roundTrips, `${mode}, round ${round}`).toBe(sum)
        const opening = reports.reduce((n, r) => n + r.connectRoundTrips, 0)
        if (round === 0) expect(opening, mode).toBeGreaterThan(0)
      }
    }
  })

  test('two flushes at once on a fresh pool of one: the connection opened for them serves both, its opening counted once', async () => {
    const { root: warmRoot } = await setup(driver, 'burst')
    for (const mode of modes) {
      const fresh = open(driver, schemaOf(driver, 'burst'), 1)
      const root = await EntityManager.connect(fresh.client, {
        schema: warmRoot.schema,
        pipeline: mode,
        idBlockSize: 1000,
        prepare: true, // no pooler check at connect: the pool is still cold when the flushes start
      })
      fresh.counter.reset()
      const reports = await Promise.all(
        [0, 1].map((i) => {
          const em = root.fork()
          createGraph(em, 500 + modes.indexOf(mode) * 10 + i)
          return em.flush()
        }),
      )
      const sum = reports.reduce((n, r) => n + r.roundTrips, 0)
      expect(fresh.counter.read().roundTrips, mode).toBe(sum)
      expect(
        reports.filter((r) => r.connected),
        mode,
      ).toHaveLength(1)
    }
  })

  test('flushing with nothing to do costs no round trip', async () => {
    const { root, counter } = await setup(driver, 'burst')
    counter.reset()
    const report = await root.fork().flush()
    expect(report.roundTrips).toBe(0)
    expect(counter.read().writes).toBe(0)
  })

  test('130 statements in one burst: 1 round trip', async () => {
    const { client, counter } = open(driver, 'wide')
    const root = await EntityManager.connect(client, { idBlockSize: 1000 })
    const flush = (salt: number) => {
      const em = root.fork()
      for (let i = 0; i < 130; i++) em.create(`w${i}`, { v: salt })
      return em.flush()
    }
    const first = await counted(counter, () => flush(1)) // new shapes; ids fetched when connecting
    expect(first).toMatchObject({ idFetch: false, roundTrips: 1 })
    const report = await counted(counter, () => flush(2))
    expect(report.statements).toBe(130)
    expect(report.roundTrips).toBe(1)
  })
})
