import type { EntityState, EntityStatus } from '../track/entity-state.ts'
import { OutsideHooks } from './outside-hooks.ts'
import type { UnitOfWorkState } from './state.ts'

/** What a checkpoint copies of each entity it knows: enough to put its row and status back. */
type Copies = ReadonlyMap<EntityState, { status: EntityStatus; row: Record<string, unknown> }>

/** A mark taken by {@link checkpoint}. */
export interface Checkpoint {
  /** The code that may change the unit of work is done: what changes from here on is kept by `undo`. */
  settled(): void
  /** Takes back what changed since the checkpoint (until `settled()`, when it was called). */
  undo(): void
}

/**
 * Remembers the unit of work as it is, before code that may change it (the flush hooks). Call
 * `settled()` once that code is done; `undo()` then takes back what it changed (entities created,
 * columns assigned, entities removed, upserts), leaving what changed after `settled()`, and entities
 * loaded meanwhile, as they are. After a `clear()` since the checkpoint, there is nothing to take back:
 * the unit of work forgot the hooks' changes with the rest (its upserts now are later ones).
 */
export function checkpoint(uow: UnitOfWorkState): Checkpoint {
  const known = [...uow.map.values(), ...uow.created]
  const before: Copies = new Map(known.map((s) => [s, { status: s.status, row: { ...s.row } }]))
  const created = new Set(uow.created)
  const upserts = uow.upserts.length
  const clears = uow.clears
  // The application's own changes from here until the hooks are done are recorded: never taken back.
  const outside = new OutsideHooks()
  uow.outsideHooks = outside
  const stopRecording = () => {
    if (uow.outsideHooks === outside) uow.outsideHooks = undefined
  }
  let after: Copies | undefined
  let hookCreated: EntityState[] = []
  let hookUpserts = 0
  return {
    settled: () => {
      stopRecording()
      after = new Map(known.map((s) => [s, { status: s.status, row: { ...s.row } }]))
      hookCreated = [...uow.created].filter((s) => !created.has(s))
      hookUpserts = uow.upserts.length - upserts
    },
    undo: () => {
      stopRecording()
      if (uow.clears !== clears) return
      if (after === undefined) undoAll(uow, before, created, upserts, outside)
      else undoHooks(uow, before, after, hookCreated, upserts, hookUpserts, outside)
    },
  }
}

/** Undo of a checkpoint whose code failed: everything back as it was. */
function undoAll(
  uow: UnitOfWorkState,
  before: Copies,
  created: ReadonlySet<EntityState>,
  upserts: number,
  outside: OutsideHooks,
): void {
  const now: Copies = new Map([...before.keys()].map((s) => [s, { status: s.status, row: { ...s.row } }]))
  undoHooks(
    uow,
    before,
    now,
    [...uow.created].filter((s) => !created.has(s)),
    upserts,
    uow.upserts.length - upserts,
    outside,
  )
}

/**
 * Takes back what changed between `before` and `after`, where nothing changed it since, and where
 * the application did not change it itself meanwhile (`outside`): an assignment, a creation, a
 * removal or an upsert of its own while the hooks ran stays pending.
 */
function undoHooks(
  uow: UnitOfWorkState,
  before: Copies,
  after: Copies,
  hookCreated: readonly EntityState[],
  upserts: number,
  hookUpserts: number,
  outside: OutsideHooks,
): void {
  for (const [s, was] of before) {
    const then = after.get(s)!
    const own = outside.columns.get(s)
    for (const name of new Set([...Object.keys(was.row), ...Object.keys(then.row)])) {
      const had = Object.hasOwn(was.row, name)
      if (s.row[name] !== then.row[name] || (had && was.row[name] === then.row[name])) continue
      if (own?.has(name) === true) continue
      if (!had && Object.hasOwn(then.row, name)) delete s.row[name]
      else s.row[name] = was.row[name]
    }
    if (s.status !== then.status || was.status === then.status || outside.entities.has(s)) continue
    if (then.status === 'removed') uow.removed.delete(s)
    if (was.status === 'new') uow.created.restore(s)
    s.status = was.status
  }
  for (const s of hookCreated) {
    if (s.status !== 'new' || outside.entities.has(s)) continue
    uow.created.delete(s)
    s.status = 'detached'
  }
  // The hooks' upserts, the application's own kept in their order.
  const recorded = uow.upserts.splice(upserts, hookUpserts)
  const kept = recorded.filter((u) => outside.entities.has(u.state))
  uow.upserts.splice(upserts, 0, ...kept)
}
