import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { afterAll, beforeAll, inject } from 'vitest'
import { createDatabase, dropDatabase } from '../postgres/databases.ts'
import { createRoundTripCounter, type RoundTripCounter } from '../round-trips/round-trip-counter.ts'
import { connectToxiproxy } from '../toxiproxy/connect-toxiproxy.ts'
import type { ProxyHandle, StartedToxiproxy } from '../toxiproxy/types.ts'
import type { ProvidedServices } from './provided.ts'
import './provided.ts'
import { type ClientOptions, type DriverName, openClient, type TestClient } from '../clients/open-client.ts'
import { withSocket } from '../round-trips/with-socket.ts'

/** Options of a client made by {@link TestDatabase.connect}. */
export interface ConnectOptions extends postgres.Options<Record<string, postgres.PostgresType>> {
  /** Connect through this file's toxiproxy proxy (default true). */
  readonly proxied?: boolean
}

/** A database of this test file's own, behind a proxy of its own. */
export interface TestDatabase {
  readonly services: ProvidedServices
  readonly name: string
  /** Direct URL (no proxy). */
  readonly url: string
  /** URL through this file's proxy. */
  readonly proxiedUrl: string
  readonly proxy: ProxyHandle
  readonly toxiproxy: StartedToxiproxy
  /** A direct client (max 4 connections) for setup and checks. */
  readonly sql: postgres.Sql
  /** A new client with a round-trip counter on its sockets; ended after the file. */
  connect(options?: ConnectOptions): { sql: postgres.Sql; counter: RoundTripCounter }
  /**
   * A new pool of `driver` (through the proxy unless `proxied: false`) with a round-trip counter on its
   * sockets; ended after the file.
   */
  client(driver: DriverName, options?: ClientOptions & { readonly proxied?: boolean }): TestClient
}

/**
 * Gives this test file its own database and its own toxiproxy proxy in front of the run's PostgreSQL,
 * so files run in parallel and toxics of one file never slow another. Call at the top level of a file;
 * use the result inside tests and hooks.
 *
 * @example
 * const db = useTestDatabase()
 * test('one round trip', async () => {
 *   const { sql, counter } = db.connect({ max: 1 })
 *   await sql`select 1`
 * })
 */
export function useTestDatabase(): TestDatabase {
  let state: Omit<TestDatabase, 'connect' | 'client'> | undefined
  const clients: postgres.Sql[] = []
  const testClients: TestClient[] = []
  const get = () => {
    if (!state)
      throw new Error('useTestDatabase(): use the database inside tests or hooks, not at import time')
    return state
  }

  beforeAll(async () => {
    const services = inject('pipeflush')
    const name = `t_${randomBytes(5).toString('hex')}`
    const url = await createDatabase(services.adminUrl, name)
    const toxiproxy = await connectToxiproxy(services.toxiproxyUrl)
    const proxy = await toxiproxy.proxy(name, { host: services.postgresHost, port: services.postgresPort })
    const sql = postgres(url, { max: 4, onnotice: () => {} })
    clients.push(sql)
    state = { services, name, url, proxiedUrl: proxy.rewriteUrl(url), proxy, toxiproxy, sql }
  })

  afterAll(async () => {
    await Promise.all([
      ...clients.map((c) => c.end({ timeout: 1 }).catch(() => {})),
      ...testClients.map((c) => c.end()),
    ])
    if (!state) return
    await state.proxy.remove().catch(() => {})
    await dropDatabase(state.services.adminUrl, state.name).catch(() => {})
  })

  return {
    get services() {
      return get().services
    },
    get name() {
      return get().name
    },
    get url() {
      return get().url
    },
    get proxiedUrl() {
      return get().proxiedUrl
    },
    get proxy() {
      return get().proxy
    },
    get toxiproxy() {
      return get().toxiproxy
    },
    get sql() {
      return get().sql
    },
    connect(options = {}) {
      const s = get()
      const { proxied = true, ...rest } = options
      const counter = createRoundTripCounter()
      const sql = postgres(
        proxied ? s.proxiedUrl : s.url,
        withSocket({ onnotice: () => {}, ...rest }, counter),
      )
      clients.push(sql)
      return { sql, counter }
    },
    client(driver, options = {}) {
      const s = get()
      const { proxied = true, ...rest } = options
      const c = openClient(driver, proxied ? s.proxiedUrl : s.url, createRoundTripCounter(), rest)
      testClients.push(c)
      return c
    },
  }
}
