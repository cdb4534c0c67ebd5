import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { connectionParts } from '../../../src/drivers/pg/pg-adapter.ts'
import { EntityManager } from '../../../src/index.ts'

// A pg.Pool's connection string as node-postgres reads it: one it cannot read is INVALID_CONFIG at
// connect (it was CONNECTION_LOST naming localhost:5432, an address the URL never named), and the
// address errors name is the one pg connects to, the query's `host` and `port` included.

const pools: pg.Pool[] = []
const pool = (config: pg.PoolConfig) => {
  const p = new pg.Pool({ ...config, connectionTimeoutMillis: 500 })
  pools.push(p)
  return p
}

describe("a pg.Pool's connection string", () => {
  it.each([
    ['a password with an unencoded #', 'postgres://app:se#cret@127.0.0.1:5432/app'],
    ['a password with an unencoded /', 'postgres://app:se/cret@127.0.0.1:5432/app'],
    ['a port that is not a number', 'postgres://app:secret@127.0.0.1:port/app'],
  ])('%s: INVALID_CONFIG at connect, before anything is sent, never the password', async (_, url) => {
    expect(() => new pg.Client({ connectionString: url })).toThrow(/Invalid URL/) // pg cannot either
    const error = await EntityManager.connect(pool({ connectionString: url })).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'INVALID_CONFIG' })
    expect(String((error as Error).message)).toMatch(/percent-encoded/)
    expect(String((error as Error).message)).not.toMatch(/cret/)
  })

  it.each([
    ['postgres://app:p@db.example:6543/app', { host: 'db.example', port: '6543' }],
    ['postgres://app@/app?host=127.0.0.1&port=55441', { host: '127.0.0.1', port: '55441' }],
    ['postgres://app@/app?host=/var/run/postgresql', { host: '/var/run/postgresql' }],
    ['postgres://app:p@[::1]:5433/app', { host: '::1', port: '5433' }],
    ['postgres://app:p%23w@h/app', { host: 'h' }],
    ['/var/run/postgresql app', { host: '/var/run/postgresql' }],
    ['socket:/var/run/postgresql?db=app&port=5433', { host: '/var/run/postgresql', port: '5433' }],
  ] as [string, { host: string; port?: string }][])('%s: the host and port pg connects to', (url, parts) => {
    expect(connectionParts(url)).toEqual(parts)
    const params = (
      new pg.Client({ connectionString: url }) as unknown as {
        connectionParameters: { host: string; port: number }
      }
    ).connectionParameters
    expect(params.host).toBe(parts.host)
    if (parts.port !== undefined) expect(String(params.port)).toBe(parts.port)
  })

  it('a host and port given in the query are named when the connection fails', async () => {
    const error = await EntityManager.connect(
      pool({ connectionString: 'postgres://u:p@/app?host=127.0.0.1&port=1' }),
    ).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'HOST_UNREACHABLE' })
    expect(String((error as Error).message)).toContain('127.0.0.1:1')
  })
})
