import type { TableModel } from '../model/model.ts'
import { schemaTablesOf } from './table-of-key.ts'

const reached = new WeakMap<TableModel, ReadonlySet<string>>()

/**
 * The keys of the tables whose rows a delete from `table` may remove by ON DELETE CASCADE, through
 * chains of such keys (`table`'s own key left out): found once per table.
 *
 * @example
 * // post.author_id -> author on delete cascade, comment.post_id -> post on delete cascade
 * cascadeReach(author) // Set { 'post', 'comment' }
 */
export function cascadeReach(table: TableModel): ReadonlySet<string> {
  let keys = reached.get(table)
  if (keys !== undefined) return keys
  const found = new Set<string>()
  const tables = schemaTablesOf(table)
  if (tables !== undefined) {
    const targets = [table.key]
    for (let target = targets.pop(); target !== undefined; target = targets.pop()) {
      for (const t of tables.values()) {
        if (t.key === table.key || found.has(t.key)) continue
        if (t.foreignKeys.some((fk) => fk.target === target && fk.onDelete === 'cascade')) {
          found.add(t.key)
          targets.push(t.key)
        }
      }
    }
  }
  keys = found
  reached.set(table, keys)
  return keys
}
