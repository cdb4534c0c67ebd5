import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { MAX_JSON_DEPTH } from '../../../src/values/json.ts'

// PostgreSQL takes json nested any depth; pipeflush writes with JSON.stringify and copies snapshots,
// which recurse: deeper than MAX_JSON_DEPTH is INVALID_VALUE before anything is sent, never a
// RangeError at a depth that depends on the stack.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe('create table deep (id serial primary key, doc jsonb, d json)')
})

const nest = (n: number): unknown => {
  let v: unknown = 1
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { k: v }
  return v
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test(`json nested ${MAX_JSON_DEPTH} deep is stored and read back; deeper is INVALID_VALUE at plan and flush, nothing sent`, async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    const row = em.create('deep', { doc: nest(MAX_JSON_DEPTH), d: nest(MAX_JSON_DEPTH) })
    await em.flush()
    const read = await root.fork().load('deep', row.id as number)
    expect(read.doc).toEqual(nest(MAX_JSON_DEPTH))
    expect(read.d).toEqual(nest(MAX_JSON_DEPTH))

    const before = await db.sql.unsafe('select count(*)::int as n from deep')
    for (const depth of [MAX_JSON_DEPTH + 1, 4000, 6000, 50_000]) {
      for (const col of ['doc', 'd']) {
        const fresh = root.fork()
        fresh.create('deep', { [col]: nest(depth) })
        let planned: unknown
        try {
          fresh.plan()
        } catch (e) {
          planned = e
        }
        expect(isPipeflushError(planned, 'INVALID_VALUE'), String(planned)).toBe(true)
        const flushed = await fresh.flush().catch((e: unknown) => e)
        expect(isPipeflushError(flushed, 'INVALID_VALUE'), String(flushed)).toBe(true)
        expect((flushed as Error).message).toContain(`more than ${MAX_JSON_DEPTH} deep`)

        const changed = root.fork()
        const loaded = await changed.load('deep', row.id as number)
        loaded[col] = nest(depth)
        await expect(changed.flush()).rejects.toMatchObject({ code: 'INVALID_VALUE' })
      }
    }
    expect(await db.sql.unsafe('select count(*)::int as n from deep')).toEqual(before)
  })
})
