import { errors } from '../errors.ts'
import type { SchemaModel } from '../model/model.ts'
import { completePlan } from './complete-plan.ts'
import type { PlanInput } from './draft.ts'
import { draftFlush } from './draft-flush.ts'
import type { BuildOptions } from './statements/build-statement.ts'
import type { ChangeSet, FlushPlan } from './types.ts'

/** A change set as the planner takes it: its rows as they are (they hold no entity, no slot). */
function changeSetInput(changes: ChangeSet): PlanInput {
  return {
    inserts: changes.inserts.map((change) => ({
      table: change.table,
      row: change.values,
      upsert: change.upsert,
    })),
    updates: changes.updates.map((change) => ({
      table: change.table,
      key: change.key,
      set: Object.keys(change.set),
      row: change.set,
      expectedVersion: change.expectedVersion,
    })),
    deletes: changes.deletes.map((change) => ({
      table: change.table,
      key: change.key,
      set: [],
      row: change.key,
      expectedVersion: change.expectedVersion,
    })),
  }
}

/** A change set holds no slot: there is no id to give. */
function noIds(): never {
  throw errors.internal('planFlush', 'a change set holds no id to assign')
}

/**
 * Plans a flush of a change set (plain values, every key given): validates and encodes it, groups
 * rows into statements (insert per table and supplied columns, update per table and set columns,
 * delete per table), orders them by foreign key dependency computed from the data and returns them in
 * waves, rows sorted by key. `options`: what the statements read back (`serverValues`, default none)
 * and from how many rows an insert goes as COPY (`copyRows`, default never). Pure: no I/O. The same
 * planner as a flush's (`draftFlush`, then `completePlan`).
 *
 * @example
 * const plan = planFlush(schema, {
 *   inserts: [{ table: 'author', values: { id: 1, name: 'Ann' } }, { table: 'book', values: { id: 'b1', author_id: 1 } }],
 *   updates: [],
 *   deletes: [],
 * })
 * plan.waves.map((wave) => wave.map((s) => `${s.kind} ${s.table}`)) // [['insert author'], ['insert book']]
 */
export function planFlush(schema: SchemaModel, changes: ChangeSet, options: BuildOptions = {}): FlushPlan {
  return completePlan(draftFlush(schema, changeSetInput(changes)), noIds, options).plan
}

/** How many statements `plan` sends. */
export function statementCount(plan: FlushPlan): number {
  let n = 0
  for (let w = 0; w < plan.waves.length; w++) n += plan.waves[w]!.length
  return n
}

/**
 * What a plan writes, in a few words: each kind of statement with its tables, in the order sent
 * (`INSERT author book; UPDATE book; DELETE review`). Low cardinality: fit for a span's query summary.
 */
export function planSummary(plan: FlushPlan): string {
  // Written once per flush: plain loops over the few statements, one text per kind.
  const kinds: string[] = []
  const tables: string[][] = []
  for (const wave of plan.waves) {
    for (const s of wave) {
      const kind = s.upsert !== undefined ? 'UPSERT' : s.copy === true ? 'COPY' : KIND_WORDS[s.kind]
      const k = kinds.indexOf(kind)
      if (k < 0) {
        kinds.push(kind)
        tables.push([s.table])
      } else if (!tables[k]!.includes(s.table)) tables[k]!.push(s.table)
    }
  }
  let out = ''
  for (let k = 0; k < kinds.length; k++) out += `${k === 0 ? '' : '; '}${kinds[k]} ${tables[k]!.join(' ')}`
  return out
}

const KIND_WORDS = { insert: 'INSERT', update: 'UPDATE', delete: 'DELETE' } as const
