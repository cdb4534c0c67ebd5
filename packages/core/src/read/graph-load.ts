import type { Row } from '../drivers/driver.ts'
import { errors, type PipeflushError } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import type { Entity, EntityState } from '../track/entity-state.ts'
import { canonicalText } from '../unit-of-work/referring-index.ts'
import { recordCount, recordOrder, recordReference } from '../unit-of-work/relation-reads.ts'
import type { UnitOfWork } from '../unit-of-work/unit-of-work.ts'
import { decodeValue, normalizeKeyValue } from '../values/index.ts'
import { decodeRow } from './decode-row.ts'
import type { GraphLevel } from './graph.ts'
import type { BatchItem, ReadStatement } from './read-batch.ts'

/**
 * A graph load as an item of the read batch: its selects (see `graph.ts`) in one message, their rows
 * tracked in `uow`'s identity map (an entity already managed keeps its pending changes), each
 * relation marked loaded on the entities of the level it was read through (in the order read, when
 * one was asked for), each count recorded on the entities it counts for, the roots given to `done`:
 * the managed ones, in the select's order. `since`: when the read started (see `UnitOfWork.add`).
 *
 * A graph load goes in the batch like any read, in the round trip of the other reads of its tick.
 *
 * @example
 * batch.add(graphLoad(uow, graphLevels(schema, author, root, { books: true }), 'Reading author', uow.readStarts(), resolve, reject))
 */
export function graphLoad(
  uow: UnitOfWork,
  levels: readonly GraphLevel[],
  what: string,
  since: number,
  done: (roots: Entity[]) => void,
  failed: (error: PipeflushError) => void,
): BatchItem {
  // Each level's row set among the answers: a level whose rows an earlier one selects has none.
  const answerOf: number[] = []
  const sent: ReadStatement[] = []
  for (const level of levels) {
    answerOf.push(level.rowsOf === undefined ? sent.length : -1)
    if (level.rowsOf === undefined) sent.push(level.statement)
  }
  // Each level selects its parent level's rows again: all in one snapshot (see `sendSelects`).
  if (sent.length > 1) for (let i = 0; i < sent.length; i++) sent[i] = { ...sent[i]!, snapshot: true }
  return {
    what,
    statements: (): readonly ReadStatement[] => sent,
    settle(rowSets: readonly (readonly Row[])[]) {
      const states: EntityState[][] = []
      // Each level's rows as read (an entity already managed keeps its pending changes in its own row).
      const read: Record<string, unknown>[][] = []
      for (let i = 0; i < levels.length; i++) {
        const level = levels[i]!
        const rowsOf = level.rowsOf
        const rows = rowSets[answerOf[i]!] ?? []
        if (level.role === 'counts') {
          counted(level, rows, states[level.parent!]!)
          states.push([])
          read.push([])
        } else if (rowsOf !== undefined) {
          states.push(states[rowsOf]!)
          read.push(read[rowsOf]!)
        } else {
          const decoded = rows.map((raw) => decodeRow(level.table, raw))
          read.push(decoded)
          states.push(decoded.map((row) => uow.add(level.table, row, 'managed', since)))
        }
      }
      for (let i = 0; i < levels.length; i++) {
        const level = levels[i]!
        if (level.role !== 'related' || level.parent === undefined || level.relation === undefined) continue
        const name = level.relation.name
        const ranks = level.ordered ? new Map(states[i]!.map((s, r) => [s, r])) : undefined
        const parents = states[level.parent]!
        // A many-to-one read for the key each parent row held: none read is none (see `navigate`).
        const rows = level.relation.kind === 'many-to-one' ? read[level.parent]! : undefined
        for (let p = 0; p < parents.length; p++) {
          const parent = parents[p]!
          parent.loaded ??= new Set()
          parent.loaded.add(name)
          if (ranks !== undefined) recordOrder(parent, name, ranks)
          if (rows !== undefined)
            recordReference(parent, name, canonicalText(parent.table, level.relation.columns, rows[p]!))
        }
      }
      done(states[0]!.filter((s) => s.status === 'managed' || s.status === 'new').map((s) => s.entity))
    },
    fail: failed,
  }
}

/**
 * Records the counts of a `counts` level on the `parents` they count for (0 for a parent no row
 * names): each row gives the counted rows' columns that reference a parent (`k0...`, as text) and
 * how many there are (`n`, an int8 as text, read as a number: exact up to 2^53 - 1, beyond which the
 * count is `INVALID_VALUE`).
 */
function counted(level: GraphLevel, rows: readonly Row[], parents: readonly EntityState[]): void {
  const relation = level.relation!
  const parentTable = parents[0]?.table
  if (parentTable === undefined) return
  const byKey = new Map<string, number>()
  for (const row of rows) {
    const values = relation.columns.map((c, i) => {
      const column = parentTable.columnsByName.get(c)!
      const text = row[`k${i}`]
      return decodeValue(typeof text === 'string' ? text : null, column, { table: parentTable.key })
    })
    const n = Number(row['n'])
    if (!Number.isSafeInteger(n))
      throw errors.invalidWithOption(
        `$count of ${relation.name}`,
        `a count of ${String(row['n'])} is beyond a number's exact integers`,
      )
    byKey.set(keyText(parentTable, relation.columns, values), n)
  }
  for (const parent of parents) {
    const key = keyText(
      parentTable,
      relation.columns,
      relation.columns.map((c) => parent.row[c]),
    )
    recordCount(parent, relation.name, byKey.get(key) ?? 0)
  }
}

/** The canonical text of `values` of `table`'s `columns`, to match a counted row to its parent. */
function keyText(table: TableModel, columns: readonly string[], values: readonly unknown[]): string {
  return values
    .map((v, i) =>
      v === null || v === undefined ? '\u0001' : normalizeKeyValue(v, table.columnsByName.get(columns[i]!)!),
    )
    .join('\u0000')
}
