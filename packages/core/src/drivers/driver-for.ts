import { errors } from '../errors.ts'
import type { Driver } from './driver.ts'
import { isPgPool, PgAdapter } from './pg/pg-adapter.ts'
import { isPostgresJs, PostgresJsAdapter } from './postgres-js/postgres-js-adapter.ts'
import { RuntimeDriver } from './runtime-driver.ts'

const drivers = new WeakMap<object, Driver>()

/**
 * The {@link Driver} of a client: a postgres.js `sql` (from `postgres(url)`) or a `pg.Pool`, told
 * apart by shape. One per client, made on first use (it puts pipeflush's socket meter on the client's
 * new connections, see the adapters). Anything else is `INVALID_CONFIG`.
 */
export function driverFor(client: unknown): Driver {
  if ((typeof client === 'object' || typeof client === 'function') && client !== null) {
    const known = drivers.get(client)
    if (known) return known
    const adapter = isPostgresJs(client)
      ? new PostgresJsAdapter(client)
      : isPgPool(client)
        ? new PgAdapter(client)
        : undefined
    const driver = adapter && new RuntimeDriver(adapter)
    if (driver) {
      drivers.set(client, driver)
      return driver
    }
  }
  throw errors.notAClient(describeClient(client), CLIENT_ADVICE)
}

/** What to pass instead, for messages. */
const CLIENT_ADVICE =
  "Pass a postgres.js client (`postgres(url)` from the 'postgres' package) or a node-postgres pool (`new pg.Pool({ connectionString: url })`, pg >= 8.23; a single pg.Client is not a pool)."

function describeClient(client: unknown): string {
  if (client === null) return 'null'
  if (client === undefined) return 'undefined'
  if (typeof client !== 'object' && typeof client !== 'function') return `A ${typeof client}`
  const name = (client as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === 'string' && name !== 'Object' && name !== 'Function' ? `A ${name}` : 'This value'
}
