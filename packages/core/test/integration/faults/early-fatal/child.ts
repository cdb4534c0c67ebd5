// Run as its own Node process under Node's defaults (no handler installed): an 'error' event nobody
// listens to ends it with a non-zero exit code.
//
// node-postgres: pg-pool hands a new client to `pool.connect(callback)` from inside the parsing of its
// ReadyForQuery, having taken its own error listener off; a FATAL read in the same chunk (the server
// ending the session: here `idle_session_timeout`; a terminate or a shutdown alike) was emitted before
// pipeflush's session listened, and the process crashed, although the pool has an 'error' listener
// (found by an outside probe). Both arrive in one chunk when the event loop is busy while a connection
// opens (a collection, a large parse): the loop is blocked here right after the startup is written.
// The read must fail CONNECTION_LOST, and the process go on. Prints one JSON line.
import net from 'node:net'
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import pg from 'pg'

export interface EarlyFatalConfig {
  readonly url: string
  readonly table: string
}

export interface EarlyFatalResult {
  /** How each read settled: `ok`, or its code. */
  readonly reads: readonly string[]
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as EarlyFatalConfig
const setup = new pg.Client({ connectionString: cfg.url })
await setup.connect()
await setup.query(
  `create table "${cfg.table}" (id int primary key, n int not null); insert into "${cfg.table}" values (1, 0)`,
)
await setup.end()

const pool = new pg.Pool({
  connectionString: cfg.url,
  pipeline: true,
  max: 2,
  options: '-c idle_session_timeout=100',
} as pg.PoolConfig)
pool.on('error', () => {}) // an idle client the server ended: as the README says
const root = await EntityManager.connect(pool)
const reads: string[] = []
for (let round = 0; round < 3; round++) {
  // The pool's idle connections are ended by the server meanwhile; the next read opens one.
  await new Promise((resolve) => setTimeout(resolve, 300))
  const write = net.Socket.prototype.write
  net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
    net.Socket.prototype.write = write
    const written = (write as (...a: unknown[]) => boolean).apply(this, args)
    // The startup is written: the loop busy for longer than idle_session_timeout.
    setImmediate(() => {
      const until = Date.now() + 400
      while (Date.now() < until) {}
    })
    return written
  } as typeof write
  try {
    await root.fork().load(cfg.table, 1)
    reads.push('ok')
  } catch (e) {
    reads.push(isPipeflushError(e) ? e.code : String(e))
  } finally {
    net.Socket.prototype.write = write
  }
}
await pool.end()
const result: EarlyFatalResult = { reads }
process.stdout.write(`${JSON.stringify(result)}\n`)
