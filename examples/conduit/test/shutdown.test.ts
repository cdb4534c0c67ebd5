import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/schema.ts'
import { register } from './support/api-client.ts'
import { conduitOn, configurations } from './support/conduit-under-test.ts'

// The server closing while requests are in flight (a deploy's SIGTERM): each request answers as its
// work ended (a write that commits answers 201, not a reset connection the client would send again),
// then the close resolves, and no new connection is taken.
const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
})

afterEach(() => db.proxy.clearToxics())

describe.each(configurations(TEST_DRIVERS))(
  '$driver, $implementation: closing',
  ({ driver, implementation }) => {
    test('close() while three articles are being created: each answers 201 and is stored once, then the server closes', async () => {
      const conduit = await conduitOn(db, driver, implementation)
      let closed: Promise<void> | undefined
      try {
        const ada = await register(conduit.apiUrl, 'ada')
        // Each round trip to the database takes 300 ms more: the requests are in flight at the close.
        await db.proxy.addToxic('latency', { latency: 300 }, { stream: 'downstream', name: 'slow' })
        const titles = [1, 2, 3].map((i) => `Closing ${driver} ${implementation} ${ada.username} ${i}`)
        const answers = titles.map((title) =>
          ada.send('POST', '/articles', { article: { title, description: 'D', body: 'B', tagList: [] } }),
        )
        await new Promise((resolve) => setTimeout(resolve, 150))
        closed = conduit.close()
        expect((await Promise.all(answers)).map((a) => a.status)).toEqual([201, 201, 201])
        const started = performance.now()
        await closed
        expect(performance.now() - started).toBeLessThan(2_000)
        const stored = await db.sql`select count(*)::int as n from article where title in ${db.sql(titles)}`
        expect(stored[0]!['n']).toBe(3)
        await expect(fetch(`${conduit.apiUrl}/tags`)).rejects.toThrow()
      } finally {
        await (closed ?? conduit.close())
      }
    })
  },
)
