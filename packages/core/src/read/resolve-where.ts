import { recordArgument } from '../arguments.ts'
import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import { columnOf } from '../schema/checks.ts'
import { resolveReference } from '../track/changes.ts'
import { stateOf } from '../track/entity-state.ts'
import { emptyRow } from '../track/row.ts'
import { anyOfList, type Where } from './select-sql.ts'

/**
 * `where` with every entity given as a value (a foreign-key condition) replaced by its key, checked
 * against `owner` (an entity of another unit of work is `INVALID_STATE`). Unknown columns are
 * `UNKNOWN_COLUMN`.
 *
 * A condition may give an entity as a foreign-key value, as an assignment can (a removed one too:
 * finding the rows that hold it, to remove them as well); a new entity whose key is not assigned yet
 * (a sequence's, at its flush) is `INVALID_STATE` (`keylessInWhere`).
 */
export function resolveWhere(table: TableModel, where: Where, owner: object): Where {
  const given = recordArgument(where, `find(${table.key}): where`, 'INVALID_VALUE', { table: table.key })
  const out = emptyRow()
  for (const name of Object.keys(given)) {
    const column = columnOf(table, name)
    const value = given[name]
    const resolve = (v: unknown) => {
      const resolved = resolveReference(v, column, table, owner, undefined, true)
      if (resolved === undefined && v !== undefined)
        throw errors.keylessInWhere(table.key, name, stateOf(v)?.table.key ?? 'entity')
      return resolved
    }
    out[name] = anyOfList(column, value) ? value.map(resolve) : resolve(value)
  }
  return out
}
