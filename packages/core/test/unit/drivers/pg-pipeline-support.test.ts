import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { EntityManager } from '../../../src/index.ts'

// node-postgres took `pipeline: true` from 8.23: an older client ignores the option, and a pool made
// with it would flush unpipelined and unprepared without a word. pipeflush says so at connect, before
// anything is sent. An older pg is stood for by a client class that drops the option, as pg 8.22's
// constructor does.

/** pg 8.22's Client: it does not keep `pipeline`. */
class ClientWithoutPipeline extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config)
    ;(this as { pipeline?: unknown }).pipeline = undefined
  }
}

const pools: pg.Pool[] = []
const pool = (config: { readonly pipeline?: boolean; readonly Client?: typeof pg.Client }) => {
  const p = new pg.Pool({
    connectionString: 'postgres://u:p@127.0.0.1:1/app',
    connectionTimeoutMillis: 500,
    ...config,
  })
  pools.push(p)
  return p
}

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()))
})

describe('a pg.Pool made with pipeline: true', () => {
  it('on clients without pipeline mode: INVALID_CONFIG at connect, saying which pg it needs', async () => {
    const error = await EntityManager.connect(pool({ pipeline: true, Client: ClientWithoutPipeline })).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 'INVALID_CONFIG' })
    expect(String((error as Error).message)).toMatch(/pipeline: true.*no pipeline mode.*pg >= 8\.23/)
  })

  it.each([
    ['on pg clients that pipeline', { pipeline: true }],
    ['without it, on clients without pipeline mode', { Client: ClientWithoutPipeline }],
  ])('%s: not refused for it (the connection is then tried)', async (_, config) => {
    const error = await EntityManager.connect(pool(config)).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'HOST_UNREACHABLE' })
  })
})
