import { isRef, type Unit, type Value } from './unit.ts'

/** One parameterized statement, `$n` placeholders, values as the drivers take them. */
export interface RawStatement {
  readonly text: string
  readonly params: readonly Value[]
}

/**
 * The reads of a unit as hand-written SQL: `select * ... where <column> = any($1)`, one per read.
 *
 * @example
 * readStatements(unit)[0] // { text: 'select * from product where id = any($1::int8[])', params: [[3, 9]] }
 */
export function readStatements(unit: Unit): { text: string; params: [number[]] }[] {
  return unit.reads.map((r) => ({
    text: `select * from ${r.table} where ${r.column} = any($1::int8[])`,
    params: [[...r.ids]],
  }))
}

/**
 * The writes of a unit as an application would write them by hand: one statement per row, inserts in
 * the unit's order (parents first) with ids the application chooses (`nextId()`, as with client-side
 * ids: no round trip to get them), then updates of the changed columns, then deletes. Sent in this
 * order, they can all be in flight at once.
 *
 * @example
 * writeStatements(unit, () => 1e12)[0]?.text // 'insert into purchase (id, customer_id, ...) values ($1, $2, ...)'
 */
export function writeStatements(unit: Unit, nextId: () => number): RawStatement[] {
  const ids: number[] = []
  const out: RawStatement[] = []
  for (const row of unit.inserts) {
    const id = nextId()
    ids.push(id)
    const columns = ['id', ...Object.keys(row.values)]
    const params: Value[] = [
      id,
      ...Object.values(row.values).map((v) => (isRef(v) ? (ids[v.ref] ?? null) : v)),
    ]
    out.push({
      text: `insert into ${row.table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      params,
    })
  }
  for (const u of unit.updates) {
    const columns = Object.keys(u.set)
    out.push({
      text: `update ${u.table} set ${columns.map((c, i) => `${c} = $${i + 1}`).join(', ')} where id = $${columns.length + 1}`,
      params: [...Object.values(u.set), u.id],
    })
  }
  for (const d of unit.deletes) out.push({ text: `delete from ${d.table} where id = $1`, params: [d.id] })
  return out
}
