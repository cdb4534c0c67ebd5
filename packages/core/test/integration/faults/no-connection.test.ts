import { EntityManager, isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { createRoundTripCounter, openClient, startCutProxy } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

/**
 * When no connection can be opened, a flush fails with CONNECTION_LOST naming where it tried (never
 * the password), after the driver's connect timeout at the latest: it is not retried silently until
 * flushTimeoutMs.
 */
const db = useTestDatabase()
const CONNECT_TIMEOUT_S = 2

beforeAll(async () => {
  await db.sql.unsafe('create table gone (id bigserial primary key, v text not null)')
})

/** A root entity manager (a declared schema: connecting makes no query) on a client of `url`. */
async function rootOn(driver: (typeof TEST_DRIVERS)[number], url: string) {
  const { root: known } = await warmRoot(driver)
  const client = openClient(driver, url, createRoundTripCounter(), {
    max: 2,
    connectTimeoutSeconds: CONNECT_TIMEOUT_S,
  })
  const root = await EntityManager.connect(client.client, {
    schema: known.schema,
    prepare: true,
    flushTimeoutMs: 30_000,
  })
  return { root, client }
}

async function warmRoot(driver: (typeof TEST_DRIVERS)[number]) {
  const c = db.client(driver, { max: 1 })
  return { root: await EntityManager.connect(c.client) }
}

async function failedFlush(root: EntityManager): Promise<{ error: PipeflushError; ms: number }> {
  const em = root.fork()
  em.create('gone', { v: 'x' })
  const started = performance.now()
  const error = await em.flush().then(
    () => {
      throw new Error('the flush succeeded')
    },
    (e: unknown) => e as PipeflushError,
  )
  return { error, ms: performance.now() - started }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('the server is gone (nothing listens): CONNECTION_LOST at once, naming host and port, no secret', async () => {
    const closed = await startCutProxy({ host: db.services.postgresHost, port: db.services.postgresPort })
    await closed.stop()
    const url = new URL(db.url)
    url.port = String(closed.port)
    const { root, client } = await rootOn(driver, url.toString())
    const { error, ms } = await failedFlush(root)
    expect(isPipeflushError(error, 'CONNECTION_LOST'), String(error)).toBe(true)
    expect(error.message).toContain(`127.0.0.1:${closed.port}`)
    expect(error.message).not.toContain(url.password)
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(url.password)
    expect(ms).toBeLessThan(CONNECT_TIMEOUT_S * 1000)
    await client.end()
  })

  test('every new connection is cut during its startup: CONNECTION_LOST after the connect timeout at the latest', async () => {
    const name = `cut_${driver.replace(/\W/g, '')}`
    const proxy = await db.toxiproxy.proxy(name, {
      host: db.services.postgresHost,
      port: db.services.postgresPort,
    })
    try {
      await proxy.addToxic('limit_data', { bytes: 20 }, { stream: 'upstream' })
      const { root, client } = await rootOn(driver, proxy.rewriteUrl(db.url))
      const { error, ms } = await failedFlush(root)
      expect(isPipeflushError(error, 'CONNECTION_LOST'), String(error)).toBe(true)
      expect(error.message).toMatch(new RegExp(`${proxy.host}:${proxy.port}`))
      expect(ms).toBeLessThan(CONNECT_TIMEOUT_S * 1000 + 1500)
      // Once the network is back, the same entity manager's next unit of work flushes.
      await proxy.clearToxics()
      const em = root.fork()
      em.create('gone', { v: 'back' })
      expect((await em.flush()).inserted).toBe(1)
      await client.end()
    } finally {
      await proxy.remove()
    }
  })
})
