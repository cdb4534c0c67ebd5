import type { TableModel } from '../model/model.ts'

/**
 * `derive` memoized per table model: the fact is computed the first time a model asks, then read
 * from a WeakMap (a model does not change; a model no longer used is let go with its facts). For what
 * the planner and the unit of work ask of a table at every flush: its ordered foreign keys, key
 * comparator, key fills.
 *
 * @example
 * const orderedForeignKeys = perTable((t) => t.foreignKeys.filter((fk) => !fk.initiallyDeferred))
 * orderedForeignKeys(table) // computed once for `table`
 */
export function perTable<V>(derive: (table: TableModel) => V): (table: TableModel) => V {
  const facts = new WeakMap<TableModel, V>()
  return (table) => {
    let fact = facts.get(table)
    if (fact === undefined) {
      fact = derive(table)
      facts.set(table, fact)
    }
    return fact
  }
}
