import { CopyChunks } from '../plan/statements/copy-chunks.ts'
import type { PlannedStatement } from '../plan/types.ts'

export { COPY_CHUNK_BYTES, copyField } from '../plan/statements/copy-chunks.ts'

/**
 * The data of a COPY statement (`statement.copy`) from its parameters: its rows in COPY's text format
 * (fields separated by tabs, one line per row, in the statement's row order), UTF-8 encoded, in chunks
 * (see `CopyChunks`): what the drivers write as they are. A flush's large inserts are written from
 * their rows instead (see `plan/statements/copy-rows.ts`).
 */
export function copyData(statement: Pick<PlannedStatement, 'params' | 'rowCount'>): Buffer[] {
  const columns = statement.params
  const last = columns.length - 1
  const out = new CopyChunks()
  for (let r = 0; r < statement.rowCount; r++) {
    for (let c = 0; c <= last; c++) out.field(columns[c]![r] ?? null, c === last)
    out.endRow(columns.length)
  }
  return out.finish()
}
