import { randomUUID } from 'node:crypto'
import type { FlushConnection } from '../connection/unit-connections.ts'
import { assignIds, idNeed, placeholderIn, provisionalIds, tablesDrawingFrom } from '../ids/assign-ids.ts'
import { fetchIds } from '../ids/fetch-ids.ts'
import type { IdQuery } from '../ids/id-allocator.ts'
import { type CompletedPlan, completePlan, givesAssignedId } from '../plan/complete-plan.ts'
import type { FlushDraft, IdSource } from '../plan/draft.ts'
import { draftFlush } from '../plan/draft-flush.ts'
import { pendingInput } from '../plan/pending-input.ts'
import { planSummary, statementCount } from '../plan/plan-flush.ts'
import type { FlushPlan } from '../plan/types.ts'
import type { PendingChanges } from '../track/changes.ts'
import type { EntityState } from '../track/entity-state.ts'
import type { UnitOfWork } from '../unit-of-work/unit-of-work.ts'
import { type ConnectionUse, withFlushConnection } from './flush-connection.ts'
import type { FlushReport } from './flush-report.ts'
import type { FlushSession } from './flush-session.ts'
import type { FlushSettings } from './flush-settings.ts'
import { type ReturnedRows, sendByMode } from './modes.ts'
import { columnNamedByApi } from './outcome.ts'
import { serverFilled } from './server-filled.ts'
import { SEPARATOR } from './statement-text.ts'

/** The ids of a flush's rows, once assigned: the value each row holds. */
const assigned: IdSource = (state, column) => state.row[column]

/** What one flush is given beside the settings: where its connection comes from, who is told its plan. */
export interface FlushContext {
  /** The pool, or the unit of work's open locking transaction, which the flush commits. */
  readonly connection: FlushConnection
  /** Told the plan the flush sends, once it is known, before it is sent (for logs and spans). */
  readonly onPlanned?: ((plan: FlushPlan) => void) | undefined
}

/**
 * Flushes a unit of work, top to bottom:
 * 1. takes its pending changes (nothing to write: nothing is sent);
 * 2. plans what does not depend on the ids, before anything is sent: every value validated and
 *    encoded, the statements ordered in waves, a new row's id not assigned yet a slot (`draftFlush`);
 * 3. reserves a connection, and on it:
 * 4. assigns the ids, from the pool, or fetched on the connection first when the pool is short (an
 *    entity edited meanwhile: planned again, so that the edit is sent);
 * 5. completes the plan with them (`completePlan`; planned again when a value the application gave
 *    is one of them);
 * 6. sends it by mode, in one transaction (see `modes.ts`);
 * 7. once committed, the unit of work takes what was sent, and what the server filled, as its state.
 *    On failure it is left as it was (ids already assigned stay), so flushing again retries.
 */
export async function flushUnitOfWork(
  uow: UnitOfWork,
  settings: FlushSettings,
  context: FlushContext,
): Promise<FlushReport> {
  const started = performance.now()
  const flushId = randomUUID()
  const pending = uow.pending()
  const edits = uow.edits
  const clears = uow.clears
  const counts = {
    inserted: pending.inserts.length,
    updated: pending.updates.length,
    deleted: pending.deletes.length,
    upserted: pending.upserts.length,
  }
  const base = { flushId, mode: settings.mode, driver: settings.driver.name, ...counts }
  if (counts.inserted + counts.updated + counts.deleted + counts.upserted === 0) {
    // Nothing to write; a locking transaction still ends (COMMIT), its locks with it.
    const { held } = context.connection
    const roundTrips = held === undefined ? 0 : await held.finish(settings.timeoutMs)
    uow.settleUnchanged()
    const nothing = { roundTrips, connectRoundTrips: 0, connected: false, idFetch: false }
    return { ...base, ...nothing, statements: 0, waves: 0, durationMs: performance.now() - started }
  }
  const { schema, ids } = settings
  // Let go of once the plan is complete: the draft's arrays (rows, keys, key texts) are not kept
  // while the plan is sent and the unit of work settles.
  let draft: FlushDraft | undefined = forgetSentOnFailure(pending.inserts, () =>
    draftFlush(schema, pendingInput(pending, uow), settings),
  )
  const rows = newRows(pending)
  const need = idNeed(rows)
  // Short of ids from the start: they are fetched on the connection, and an edit made meanwhile is
  // planned again (as when the plan waited for them). Else what was pending at the call is sent.
  const shortAtCall = ids.short(need)
  let idFetch = false
  const upsertCount = uow.upsertCount
  let used: ConnectionUse<{ plan: FlushPlan; sent: CompletedPlan['sent']; returned: ReturnedRows }>
  try {
    used = await withFlushConnection(
      context.connection.source(flushId),
      settings.timeoutMs,
      flushId,
      async (fs) => {
        // Asked once the connection is had: other flushes may have drawn on the pool while this one waited.
        if (ids.short(need)) {
          idFetch = true
          await fetchIds(queryOn(fs, settings.localSettings.texts), ids, need, (seq) =>
            tablesDrawingFrom(rows, seq),
          )
        }
        assignIds(rows, need, ids)
        const replan = shortAtCall && uow.edits !== edits
        // Taken once: a second call (none today) would find no draft and plan again.
        const drafted = draft
        draft = undefined
        const { plan, sent, copies } = completeWithIds(
          replan ? undefined : drafted,
          () => draftFlush(schema, pendingInput(pending, uow), settings),
          settings,
        )
        context.onPlanned?.(plan)
        let returned: ReturnedRows
        try {
          returned = await sendByMode(fs, plan, settings, flushId, copies)
        } catch (e) {
          throw columnNamedByApi(e, schema)
        }
        return { plan: withoutTexts(plan), sent, returned }
      },
    )
  } catch (e) {
    forget(pending.inserts, e)
  }
  const { plan, sent, returned } = used.value
  const filled = serverFilled(schema, plan, returned, sent, pending.inserts, pending.upserts)
  uow.applyFlushed(pending, sent, upsertCount, filled, edits, clears)
  // Written out, not a spread of `base`: once per flush.
  return {
    flushId,
    mode: base.mode,
    driver: base.driver,
    inserted: counts.inserted,
    updated: counts.updated,
    deleted: counts.deleted,
    upserted: counts.upserted,
    roundTrips: used.roundTrips,
    connectRoundTrips: used.connectRoundTrips,
    connected: used.opened,
    idFetch,
    statements: statementCount(plan),
    waves: plan.waves.length,
    durationMs: performance.now() - started,
    bytesSent: used.bytes?.sent,
    bytesReceived: used.bytes?.received,
    summary: planSummary(plan),
  }
}

/**
 * `step` of a flush, after whose failure its new entities hold no snapshot again: a large insert gives
 * them what it sends of them when it is checked (see `checkInsert`), and a failed flush leaves the
 * unit of work as it was.
 */
function forgetSentOnFailure<T>(inserts: readonly EntityState[], step: () => T): T {
  try {
    return step()
  } catch (e) {
    return forget(inserts, e)
  }
}

function forget(inserts: readonly EntityState[], e: unknown): never {
  for (let i = 0; i < inserts.length; i++) {
    const s = inserts[i]!
    if (s.status === 'new' && s.heldSnapshot !== null) s.heldSnapshot = null
  }
  throw e
}

/**
 * The plan completed with the assigned ids: from `drafted`, or from a new draft (`redraft`) when there
 * is none (an edit made while the ids were fetched) or when a value the application gave is one of
 * the ids. Apart, so that no draft outlives the call.
 */
function completeWithIds(
  drafted: FlushDraft | undefined,
  redraft: () => FlushDraft,
  settings: Pick<FlushSettings, 'serverValues' | 'copyRows'>,
): CompletedPlan {
  let draft = drafted ?? redraft()
  if (givesAssignedId(draft, assigned)) draft = redraft()
  return completePlan(draft, assigned, settings)
}

/**
 * A sent plan without its rows' texts and keys (`params`, `keys`, emptied) when it has many rows:
 * what the flush reads after sending (what statements return, the summary) without keeping the texts
 * and keys of every row while the unit of work settles.
 */
function withoutTexts(plan: FlushPlan): FlushPlan {
  let rows = 0
  for (const wave of plan.waves) for (const s of wave) rows += s.rowCount
  if (rows < 1_000) return plan // a small plan's texts cost less than copying its statements
  return { waves: plan.waves.map((wave) => wave.map((s) => ({ ...s, params: [], keys: [] }))) }
}

/**
 * The plan the next flush of `uow` would send, ids not yet assigned shown as placeholders (`-1`,
 * `-2`...): the flush's planner, given those instead of ids. Validates every value; assigns nothing.
 *
 * `em.plan()` shows what the next flush would send, without a connection or an id drawn from the pool.
 */
export function planUnitOfWork(
  uow: UnitOfWork,
  settings: Pick<FlushSettings, 'schema' | 'serverValues' | 'copyRows'>,
): FlushPlan {
  const pending = uow.pending()
  const draft = draftFlush(settings.schema, pendingInput(pending, uow))
  const placeholders = provisionalIds(newRows(pending))
  return completePlan(draft, (state, column) => placeholderIn(placeholders, state, column), settings).plan
}

/**
 * One simple-protocol query on the flush's connection, the local settings first in its message (a
 * role's privileges on the sequences): its rows.
 */
function queryOn(fs: FlushSession, settings: readonly string[]): IdQuery {
  return async (text) => {
    const message = settings.length === 0 ? text : `${settings.join(SEPARATOR)}${SEPARATOR}${text}`
    const { rowSets } = await fs.simple(message, { rowSets: 1 })
    return rowSets[rowSets.length - 1] ?? []
  }
}

/** The new rows of a flush, inserts then upserts: the rows that may need ids (the inserts as they are without upserts). */
function newRows(pending: PendingChanges): readonly EntityState[] {
  if (pending.upserts.length === 0) return pending.inserts
  return [...pending.inserts, ...pending.upserts.map((u) => u.state)]
}
