import pg from 'pg'

/**
 * A `pg.Pool` for a measuring tool, with an `error` listener. `pool.end()` resolves once the pool has
 * let go of its connections, before their sockets closed: a tool that stops its server right after
 * died of the shutdown notice (57P01) a connection still closing got, which the pool emits as its
 * `error` (no listener: thrown). Errors of queries still reach their callers.
 *
 * @example
 * const pool = toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
 */
export function toolPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config)
  pool.on('error', () => {})
  return pool
}
