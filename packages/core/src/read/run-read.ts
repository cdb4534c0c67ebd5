import type { Param, Row } from '../drivers/driver.ts'
import { ReadBatch, type ReadContext } from './read-batch.ts'

export type { ReadContext } from './read-batch.ts'

/**
 * One statement outside a unit of work's reads (the flush log's), autocommit, on a connection of the
 * pool, with a read's guarantees (see {@link ReadBatch}): it settles within `timeoutMs` (the
 * connection is then terminated) and promptly when its connection dies, and fails with a
 * `PipeflushError` (`CONNECTION_LOST`, `QUERY_TIMEOUT` or `STATEMENT_FAILED`), secrets redacted.
 * `what` names it in messages. One round trip.
 */
export async function runRead(
  context: ReadContext,
  text: string,
  params: readonly Param[],
  what: string,
): Promise<readonly Row[]> {
  const [rows] = await new ReadBatch(context).read([{ text, params }], what)
  return rows ?? []
}
