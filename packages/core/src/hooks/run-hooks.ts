import { errors, type PipeflushError } from '../errors.ts'
import type { FlushReport } from '../flush/flush-report.ts'
import { failSpan, inSpan, startSpan } from '../observe/tracing.ts'
import type { Entity, EntityState } from '../track/entity-state.ts'
import type { UnitOfWork } from '../unit-of-work/unit-of-work.ts'
import { type FlushHooks, MAX_HOOK_ROUNDS, type TableHooks } from './flush-hooks.ts'
import { inHookScope } from './hook-scope.ts'

/** `hook()`, its error wrapped as `HOOK_FAILED` naming the hook. */
async function call(name: string, hook: () => void | Promise<void>, table?: string): Promise<void> {
  try {
    // What it changes, now or after an await, is the hooks' (see `checkpoint.ts`).
    await inHookScope(hook)
  } catch (e) {
    throw errors.hookFailed(name, e, table)
  }
}

function tableHooks(hooks: FlushHooks, table: string): TableHooks | undefined {
  const tables = hooks.tables
  return tables !== undefined && Object.hasOwn(tables, table) ? tables[table] : undefined
}

/** The states of `list` not in `seen`, added to it. */
function unseen<T>(list: readonly T[], seen: Set<T>): T[] {
  const out = list.filter((s) => !seen.has(s))
  for (const s of out) seen.add(s)
  return out
}

/**
 * The hooks that run before a flush plans anything, in rounds (see {@link FlushHooks}): `beforeFlush`
 * with what changed since its previous run, then `beforeCreate` / `beforeUpsert` / `beforeUpdate` for
 * each entity they were not called for yet in this flush; another round while a round changed the unit of work, up to
 * {@link MAX_HOOK_ROUNDS}. A hook's error is `HOOK_FAILED`; too many rounds are `HOOK_LOOP`.
 *
 * Hooks may create or change entities that need hooks in turn: rounds until nothing changes.
 */
export async function runBeforeHooks<M>(uow: UnitOfWork, hooks: FlushHooks<Entity, M>, em: M): Promise<void> {
  const reported = {
    created: new Set<EntityState>(),
    updated: new Set<EntityState>(),
    removed: new Set<EntityState>(),
    upserted: new Set<EntityState>(),
  }
  const called = {
    created: new Set<EntityState>(),
    updated: new Set<EntityState>(),
    upserted: new Set<EntityState>(),
  }
  for (let run = 1; run <= MAX_HOOK_ROUNDS; run++) {
    const edits = uow.edits
    const { beforeFlush } = hooks
    if (beforeFlush !== undefined) {
      const p = uow.pending()
      const changes = {
        created: unseen(p.inserts, reported.created).map((s) => s.entity),
        updated: unseen(
          p.updates.map((u) => u.state),
          reported.updated,
        ).map((s) => s.entity),
        removed: unseen(p.deletes, reported.removed).map((s) => s.entity),
        upserted: unseen(
          p.upserts.map((u) => u.state),
          reported.upserted,
        ).map((s) => s.entity),
        run,
      }
      await call('beforeFlush', () => beforeFlush(em, changes))
    }
    if (hooks.tables !== undefined) {
      const p = uow.pending()
      for (const s of unseen(p.inserts, called.created)) {
        const hook = tableHooks(hooks, s.table.key)?.beforeCreate
        if (hook !== undefined && s.status === 'new')
          await call(`${s.table.key}.beforeCreate`, () => hook(s.entity, em), s.table.key)
      }
      for (const s of unseen(
        p.upserts.map((u) => u.state),
        called.upserted,
      )) {
        const hook = tableHooks(hooks, s.table.key)?.beforeUpsert
        if (hook !== undefined && s.status === 'new')
          await call(`${s.table.key}.beforeUpsert`, () => hook(s.entity, em), s.table.key)
      }
      const changed = new Map(p.updates.map((u) => [u.state, u.changed]))
      for (const s of unseen([...changed.keys()], called.updated)) {
        const hook = tableHooks(hooks, s.table.key)?.beforeUpdate
        if (hook !== undefined && s.status === 'managed')
          await call(`${s.table.key}.beforeUpdate`, () => hook(s.entity, em, changed.get(s)!), s.table.key)
      }
    }
    if (uow.edits === edits) return
  }
  throw errors.hookLoop(MAX_HOOK_ROUNDS)
}

/**
 * The before-flush hooks ({@link runBeforeHooks}), traced as `pipeflush hooks`: how to take back
 * what they changed (what changed after they ran is kept), for a flush that then fails, so that
 * flushing again runs them again once. When the hooks fail, what they changed is taken back at once.
 *
 * @example
 * const undo = await beforeFlushHooks(uow, hooks, em, true)
 * try { await flush() } catch (e) { undo(); throw e }
 */
export async function beforeFlushHooks<M>(
  uow: UnitOfWork,
  hooks: FlushHooks<Entity, M>,
  em: M,
  traced: boolean,
): Promise<() => void> {
  const mark = uow.checkpoint()
  try {
    await traceHooks('pipeflush hooks', traced, () => runBeforeHooks(uow, hooks, em))
  } catch (e) {
    mark.undo()
    throw e
  }
  mark.settled()
  return () => mark.undo()
}

/**
 * The report of a committed flush after `afterCommit(report, em)` ran, if configured: what it threw
 * is in `afterCommitErrors` as `HOOK_FAILED` (the commit stands), never thrown.
 */
export async function afterCommitHook<M>(
  hooks: FlushHooks<Entity, M>,
  report: FlushReport,
  em: M,
  traced = true,
): Promise<FlushReport> {
  const { afterCommit } = hooks
  if (afterCommit === undefined) return report
  try {
    await traceHooks('pipeflush afterCommit', traced, () =>
      call('afterCommit', () => afterCommit({ ...report, afterCommitErrors: [] }, em)),
    )
    return { ...report, afterCommitErrors: [] }
  } catch (e) {
    return { ...report, afterCommitErrors: [e as PipeflushError] }
  }
}

/** `run` inside an INTERNAL span `name` (the hooks' time, visible in the flush's trace). */
async function traceHooks(name: string, traced: boolean, run: () => Promise<void>): Promise<void> {
  const span = traced ? startSpan(name, 'internal') : undefined
  try {
    await inSpan(span, run)
  } catch (e) {
    failSpan(span, e)
    throw e
  }
  span?.end()
}
