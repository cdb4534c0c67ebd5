import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { EntityManager } from '../../../src/index.ts'

// node-postgres connects to one host: given a multi-host list it takes it for one host name (or, with
// a port per host, the URL for an invalid one), and every connection fails. pipeflush says so at
// connect, before anything is sent.

const pools: pg.Pool[] = []
const pool = (config: pg.PoolConfig) => {
  const p = new pg.Pool({ ...config, connectionTimeoutMillis: 500 })
  pools.push(p)
  return p
}

describe('a pg.Pool given several hosts', () => {
  it.each([
    [
      'a URL with a port per host',
      { connectionString: 'postgres://u:secret@db1:5432,db2:5433/app?target_session_attrs=read-write' },
    ],
    ['a URL with one port', { connectionString: 'postgres://u:secret@db1,db2/app' }],
    ['the host option', { host: 'db1,db2', password: 'secret' }],
  ])('%s: INVALID_CONFIG at connect, naming the hosts and never the password', async (_, config) => {
    const error = await EntityManager.connect(pool(config)).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'INVALID_CONFIG' })
    expect(String((error as Error).message)).toMatch(/node-postgres connects to one host.*db1.*db2/)
    expect(String((error as Error).message)).not.toMatch(/secret/)
  })

  it('one host is not refused for it (the connection is then tried)', async () => {
    const error = await EntityManager.connect(
      pool({ connectionString: 'postgres://u:p@127.0.0.1:1/app' }),
    ).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'HOST_UNREACHABLE' })
  })
})
