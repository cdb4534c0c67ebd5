import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { drizzleOn } from '../fixtures/databases.ts'
import { authors, DDL } from '../fixtures/schema.ts'

// factory.run when the work throws after a locking read (the request decides not to write): the unit
// is cleared, its transaction rolled back. The row stayed locked, and a connection reserved, until
// flushTimeoutMs.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(DDL)
})

describe.each(TEST_DRIVERS)('%s: run()', (driver) => {
  test("releases a locking read's lock at once when the work throws", async () => {
    const { db: drizzle } = drizzleOn(db, driver, 2)
    const factory = await createEntityManagerFactory({ db: drizzle, flushTimeoutMs: 30_000 })
    const { result: author } = await factory.run((em) => em.create(authors, { fullName: `locked-${driver}` }))
    const failing = factory.run(async (em) => {
      await em.load(authors, author.id, { lock: 'update' })
      throw new Error('not enough stock')
    })
    await expect(failing).rejects.toThrow('not enough stock')
    // `nowait`: refused at once while another transaction holds the row.
    const [row] = await db.sql`select full_name from author where id = ${author.id} for update nowait`
    expect(row?.['full_name']).toBe(`locked-${driver}`)
  })

  test('a misspelled option is refused by name before the work runs (not dropped: a conflict not retried)', async () => {
    const { db: drizzle } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    let ran = false
    const run = factory.run(
      () => {
        ran = true
      },
      { retry: 3 } as never,
    )
    await expect(run).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message:
        'run: unknown option "retry"; the options are pipeline, flushTimeoutMs, localSettings, retries, backoffMs.',
    })
    expect(ran).toBe(false)
  })
})
