import type { ColumnModel, TableModel } from '../model/model.ts'
import { perTable } from './per-table.ts'

/**
 * How a new row gets a primary key column it leaves out:
 * - `sequence`: pipeflush draws an id from the column's sequence (identity, OWNED BY, or the sequence
 *   its DEFAULT is a `nextval` of), from a pool, before the flush is planned;
 * - `uuid`: a uuid v7 made when the entity is created (a single uuid key, or a uuid key column with a
 *   default): whatever the default (`gen_random_uuid()`, `uuidv7()`), the key is known at once;
 * - `server`: the insert leaves the column to its DEFAULT (a function, an identity whose sequence the
 *   role may not draw from, a generated column) and reads the value back in its answer. Other new rows
 *   of the same flush cannot reference such a row (its key is not known before the flush answers):
 *   the flush says so before sending;
 * - `denied`: a sequence fills it, but the role may draw from it neither directly nor through the
 *   default: the flush fails before sending, naming the sequence;
 * - `given`: no default: the application gives it.
 */
export type KeyFill = 'sequence' | 'uuid' | 'server' | 'denied' | 'given'

/**
 * How a new row of `table` gets `column` (one of its primary key columns) when it leaves it out (see
 * {@link KeyFill}).
 *
 * A new row's key decides what the flush does first: draw ids, read the key back, or refuse.
 */
export function keyFillOf(table: TableModel, column: ColumnModel): KeyFill {
  if (column.sequence !== null && !column.generated) {
    if (column.sequenceDenied !== true) return 'sequence'
    return column.identity !== null ? 'server' : 'denied'
  }
  if (column.type === 'uuid' && !column.isArray && (table.primaryKey.length === 1 || column.hasDefault))
    return 'uuid'
  return column.hasDefault ? 'server' : 'given'
}

/** A table's primary key columns by how they are filled (see {@link keyFillOf}). */
export interface KeyFills {
  /** Key columns filled from their sequence by pipeflush, in key order. */
  readonly sequence: readonly ColumnModel[]
  /** Key columns made as uuid v7 at creation. */
  readonly uuid: readonly ColumnModel[]
  /** Key columns filled by the server and read back. */
  readonly server: readonly ColumnModel[]
  /** Key columns filled by a sequence the role may not use. */
  readonly denied: readonly ColumnModel[]
}

/**
 * The primary key columns of `table` by how a new row gets them, found once per table model.
 *
 * Every new row of a flush asks: computed once per table model.
 */
export const keyFills: (table: TableModel) => KeyFills = perTable((table) => {
  const out: Record<KeyFill, ColumnModel[]> = { sequence: [], uuid: [], server: [], denied: [], given: [] }
  for (const name of table.primaryKey) {
    const column = table.columnsByName.get(name)
    if (column !== undefined) out[keyFillOf(table, column)].push(column)
  }
  return { sequence: out.sequence, uuid: out.uuid, server: out.server, denied: out.denied }
})
