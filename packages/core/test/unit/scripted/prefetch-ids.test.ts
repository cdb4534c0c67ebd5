import { isPipeflushError } from '@pipeflush/core'
import { describe, expect, test } from 'vitest'
import { scripted } from './scripted-client.ts'

// A schema declared in code connects without any query; `prefetchIds: true` fills the id pool at
// connect all the same (one query), so that the first flush of a new row fetches no ids. What an
// integration that declares its schema (the Drizzle package) asks for.
const drawsIds = (text: string) => /nextval/i.test(text)

describe.each(['postgres.js', 'pg'] as const)('%s', (driver) => {
  test('declared schema: no query at connect, the first flush fetches its ids', async () => {
    const s = await scripted(driver)
    try {
      expect(s.server.log.executed.filter((e) => drawsIds(e.text))).toEqual([])
      const em = s.root.fork()
      em.create('tally', { n: 1 })
      expect((await em.flush()).idFetch).toBe(true)
    } finally {
      await s.close()
    }
  })

  test('declared schema with prefetchIds: the ids fetched at connect, the first flush fetches none', async () => {
    const s = await scripted(driver, { prefetchIds: true })
    try {
      expect(s.server.log.executed.filter((e) => drawsIds(e.text))).toHaveLength(1)
      const em = s.root.fork()
      em.create('tally', { n: 1 })
      expect((await em.flush()).idFetch).toBe(false)
    } finally {
      await s.close()
    }
  })

  test('a prefetchIds that is not a boolean is INVALID_CONFIG', async () => {
    const e = await scripted(driver, { prefetchIds: 'yes' as never }).catch((error: unknown) => error)
    expect(isPipeflushError(e, 'INVALID_CONFIG')).toBe(true)
  })
})
