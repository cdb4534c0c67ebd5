import type { Driver, DriverError, Param, Row } from '../drivers/driver.ts'
import { GuardedSession, Interrupted } from '../drivers/guarded-session.ts'
import { inlineParams } from '../drivers/inline-params.ts'
import { errors, PipeflushError } from '../errors.ts'
import { redactError } from '../flush/redact.ts'
import { statementName } from '../flush/statement-text.ts'

/** How a read runs: on which client, within how long, named or not. */
export interface ReadContext {
  readonly driver: Driver
  readonly timeoutMs: number
  /** Name the statement (prepared once per connection) where the driver pipelines. */
  readonly named: boolean
}

/**
 * One query outside a flush (a read, the flush log), autocommit, on a connection of the pool, with a
 * flush's guarantees: it settles within `timeoutMs` (the connection is then terminated) and promptly
 * when its connection dies, and fails with a `PipeflushError` (`CONNECTION_LOST`, `QUERY_TIMEOUT` or
 * `STATEMENT_FAILED`), secrets redacted. `what` names it in messages. One round trip.
 *
 * @example
 * const rows = await runRead(context, 'select $1::text as x', ['a'], 'Reading book')
 */
export async function runRead(
  context: ReadContext,
  text: string,
  params: readonly Param[],
  what: string,
): Promise<readonly Row[]> {
  const { driver, timeoutMs } = context
  const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
  let fs: GuardedSession
  try {
    fs = new GuardedSession(await driver.reserve({ deadline }), deadline)
  } catch (e) {
    const d = driver.toDriverError(e)
    throw redactError(
      d.code === 'DEADLINE'
        ? errors.queryTimeout(what, timeoutMs, 'still waiting for a connection')
        : errors.queryFailed(what, { ...d, kind: 'connection' }),
    )
  }
  try {
    if (!fs.session.pipeline) {
      const { rowSets } = await fs.simple(params.length === 0 ? text : inlineParams(text, params), {
        rowSets: 1,
      })
      return rowSets[rowSets.length - 1] ?? []
    }
    const name = context.named ? statementName(text) : undefined
    const [result] = await fs.pipeline([{ text, params, name }])
    if (result?.status === 'rejected') throw result.reason
    return result?.value.rows ?? []
  } catch (e) {
    throw redactError(readError(e, what, timeoutMs))
  } finally {
    fs.release()
  }
}

function readError(e: unknown, what: string, timeoutMs: number): PipeflushError {
  if (e instanceof PipeflushError) return e
  if (e instanceof Interrupted) {
    return e.reason === 'timeout'
      ? errors.queryTimeout(what, timeoutMs, 'the connection was terminated')
      : errors.queryFailed(
          what,
          e.driverError ?? { kind: 'connection', message: 'the connection ended', cause: e },
        )
  }
  return errors.queryFailed(what, e as DriverError)
}
