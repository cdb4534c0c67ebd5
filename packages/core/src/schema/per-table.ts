import type { TableModel } from '../model/model.ts'

/**
 * `derive` memoized per table model: the fact is computed the first time a model asks, then read
 * from a WeakMap (a model does not change; a model no longer used is let go with its facts, but for
 * the one asked last, held until another is asked). For what the planner and the unit of work ask of
 * a table at every flush: its ordered foreign keys, key comparator, key fills.
 *
 * @example
 * const orderedForeignKeys = perTable((t) => t.foreignKeys.filter((fk) => !fk.initiallyDeferred))
 * orderedForeignKeys(table) // computed once for `table`
 */
export function perTable<V>(derive: (table: TableModel) => V): (table: TableModel) => V {
  const facts = new WeakMap<TableModel, V>()
  // The table asked last and its fact, compared before the WeakMap is: a flush asks of its rows' table
  // again and again (a graph flush some 400 times), mostly of the table asked just before.
  let last: TableModel | undefined
  let lastFact: V | undefined
  return (table) => {
    if (table === last) return lastFact as V
    let fact = facts.get(table)
    if (fact === undefined) {
      fact = derive(table)
      facts.set(table, fact)
    }
    last = table
    lastFact = fact
    return fact
  }
}
