import type { Row } from '../drivers/driver.ts'
import type { PipeflushError } from '../errors.ts'
import type { Entity, EntityState } from '../track/entity-state.ts'
import type { UnitOfWork } from '../unit-of-work/unit-of-work.ts'
import { decodeRow } from './decode-row.ts'
import type { GraphLevel } from './graph.ts'
import type { BatchItem, ReadStatement } from './read-batch.ts'

/**
 * A graph load as an item of the read batch: its selects (see `graph.ts`) in one message, their rows
 * tracked in `uow`'s identity map (an entity already managed keeps its pending changes), each
 * relation marked loaded on the entities of the level it was read through, the roots given to
 * `done`: the managed ones, in the select's order.
 *
 * A graph load goes in the batch like any read, in the round trip of the other reads of its tick.
 */
export function graphLoad(
  uow: UnitOfWork,
  levels: readonly GraphLevel[],
  what: string,
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
  return {
    what,
    statements: (): readonly ReadStatement[] => sent,
    settle(rowSets: readonly (readonly Row[])[]) {
      const states: EntityState[][] = []
      for (let i = 0; i < levels.length; i++) {
        const level = levels[i]!
        const rowsOf = level.rowsOf
        states.push(
          rowsOf !== undefined
            ? states[rowsOf]!
            : (rowSets[answerOf[i]!] ?? []).map((raw) =>
                uow.add(level.table, decodeRow(level.table, raw), 'managed'),
              ),
        )
      }
      for (const level of levels) {
        if (level.role !== 'related' || level.parent === undefined || level.relation === undefined) continue
        const name = level.relation.name
        for (const parent of states[level.parent]!) {
          parent.loaded ??= new Set()
          parent.loaded.add(name)
        }
      }
      done(states[0]!.filter((s) => s.status === 'managed' || s.status === 'new').map((s) => s.entity))
    },
    fail: failed,
  }
}
