import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { startConduit } from '../src/app.ts'
import { createSchema } from '../src/schema.ts'
import { findCollection } from '../src/suite/realworld-files.ts'
import { runSuite } from '../src/suite/run-suite.ts'

// The spec's own suite is the judge: shared/realworld/ beside the repository (not part of it).
const collection = findCollection()
const missing = 'missing' in collection ? collection.missing : undefined
if (missing) console.warn(`realworld-suite: skipped, ${missing}`)

const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
})

describe.each(TEST_DRIVERS)('%s: the RealWorld suite (newman)', (driver) => {
  test.skipIf(missing !== undefined)(
    missing ? `skipped: ${missing}` : 'passes every assertion of its 32 requests',
    async () => {
      if (!('path' in collection)) return
      const conduit = await startConduit({ pool: db.client(driver, { max: 4 }) })
      try {
        const result = await runSuite(collection.path, conduit.apiUrl)
        const { total, failed } = result.assertions
        console.log(
          `${driver}: the suite's assertions: ${total - failed} passed, ${failed} failed; ${result.requests.length} requests`,
        )
        expect(result.failures).toEqual([])
        expect(failed).toBe(0)
        expect(total).toBeGreaterThan(300)
        expect(result.requests).toHaveLength(32)
        expect(result.requests.every((r) => r.status !== undefined && r.status < 300)).toBe(true)
      } finally {
        await conduit.close()
      }
    },
  )
})
