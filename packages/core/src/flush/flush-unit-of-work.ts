import { randomUUID } from 'node:crypto'
import type { Driver } from '../drivers/driver.ts'
import { assignIds, idNeed, type ProvisionalIds, provisionalIds } from '../ids/assign-ids.ts'
import type { IdAllocator, IdQuery } from '../ids/id-allocator.ts'
import { rebindFlush } from '../ids/rebind-plan.ts'
import { withCopies } from '../plan/copy-statements.ts'
import { planFlush, planSummary } from '../plan/plan-flush.ts'
import { type ServerValuesPolicy, withServerValues } from '../plan/server-values.ts'
import type { FlushPlan } from '../plan/types.ts'
import type { HeldTransaction } from '../read/held-transaction.ts'
import type { SchemaModel } from '../schema/model.ts'
import { type PendingChanges, toChangeSet } from '../track/changes.ts'
import type { EntityState } from '../track/entity-state.ts'
import type { SentValues, UnitOfWork } from '../unit-of-work/unit-of-work.ts'
import { columnarPlan, encodeColumnar } from './columnar-inserts.ts'
import { flushLogInsert } from './flush-log.ts'
import type { FlushReport } from './flush-report.ts'
import type { PipelineMode } from './modes.ts'
import { runFlush } from './run-flush.ts'
import { serverFilled } from './server-filled.ts'

/** What flushes of one client share. */
export interface FlushContext {
  readonly driver: Driver
  readonly schema: SchemaModel
  readonly ids: IdAllocator
  readonly mode: PipelineMode
  readonly timeoutMs: number
  /** Name pipelined statements (prepared once per connection). */
  readonly named: boolean
  /** Send a `burst` as named pipelined statements instead of one simple-protocol message. */
  readonly preparedBurst: boolean
  /** The quoted SQL name of the flush log table, when configured. */
  readonly flushLog: string | undefined
  /** Which tables read back the values the server fills. */
  readonly serverValues: ServerValuesPolicy
  /** Inserts of at least this many rows go as COPY (Infinity: never). */
  readonly copyRows: number
  /** Told the plan the flush sends, once it is known, before it is sent (for logs and spans). */
  readonly onPlanned?: ((plan: FlushPlan) => void) | undefined
  /** The unit of work's open locking transaction: the flush commits it (see `HeldTransaction`). */
  readonly held?: HeldTransaction | undefined
}

/** The plan of a flush and what it sends of each entity (their snapshots once it committed). */
interface Prepared {
  readonly plan: FlushPlan
  readonly sent: SentValues
  /** Completes `sent` while the flush is sent, in slices (see `columnarPlan`). */
  readonly whileSending?: () => Promise<void>
}

/**
 * Flushes a unit of work, top to bottom:
 * 1. its pending changes (nothing to write: nothing is sent);
 * 2. validated and planned before anything is sent: with this flush's ids when the id pool has them,
 *    else with placeholders, the real ids being fetched on the flush's connection first (a flush of
 *    plain inserts then rebinds its plan to them, unless the unit of work was edited meanwhile; any
 *    other plans again: see `rebindFlush`). A flush of plain inserts into unrelated tables is encoded
 *    column by column instead, and planned from those columns once the ids are assigned (see
 *    `columnar-inserts.ts`);
 * 3. sent on one connection, in one transaction (see `run-flush.ts`), what it sends of each entity
 *    completed meanwhile when that was left for then;
 * 4. once committed, the unit of work takes what was sent as its state. On failure it is left as it
 *    was (ids already assigned stay), so flushing again retries.
 *
 * @example
 * const report = await flushUnitOfWork(uow, context)
 */
export async function flushUnitOfWork(uow: UnitOfWork, context: FlushContext): Promise<FlushReport> {
  const started = performance.now()
  const flushId = randomUUID()
  const pending = uow.pending()
  const editsAtPending = uow.edits
  const counts = {
    inserted: pending.inserts.length,
    updated: pending.updates.length,
    deleted: pending.deletes.length,
    upserted: pending.upserts.length,
  }
  const base = { flushId, mode: context.mode, driver: context.driver.name, ...counts }
  if (counts.inserted + counts.updated + counts.deleted + counts.upserted === 0) {
    // Nothing to write; a locking transaction still ends, its locks with it.
    const roundTrips = context.held === undefined ? 0 : await context.held.finish(context.timeoutMs)
    return {
      ...base,
      roundTrips,
      connectRoundTrips: 0,
      connected: false,
      idFetch: false,
      statements: 0,
      waves: 0,
      durationMs: performance.now() - started,
    }
  }
  const rows = newRows(pending)
  const need = idNeed(rows)
  const idFetch = context.ids.missing(need).size > 0
  const columnar = plainInserts(pending) ? encodeColumnar(pending.inserts, context) : undefined
  let ready: Prepared | undefined
  let provisional: Provisional | undefined
  if (idFetch) {
    if (columnar === undefined) provisional = planWithPlaceholders(uow, context.schema, pending, rows)
  } else {
    assignIds(rows, need, context.ids)
    ready = (columnar && columnarPlan(columnar)) ?? prepare(uow, context, pending)
  }
  const upsertCount = uow.upsertCount
  const result = await runFlush({
    driver: context.driver,
    mode: context.mode,
    flushId,
    timeoutMs: context.timeoutMs,
    named: context.named,
    preparedBurst: context.preparedBurst,
    opening: flushLogInsert(context.flushLog, flushId),
    fetchIds: idFetch ? (query) => takeIds(context.ids, need, rows, query) : undefined,
    prepare: () => {
      const prepared =
        ready ??
        (uow.edits === editsAtPending
          ? columnar
            ? columnarPlan(columnar)
            : rebound(provisional, pending, context)
          : undefined) ??
        prepare(uow, context, pending)
      context.onPlanned?.(prepared.plan)
      return prepared
    },
    whileSending: async (prepared) => prepared.whileSending?.(),
    held: context.held,
  })
  const { plan, sent } = result.prepared
  const filled = serverFilled(context.schema, plan, result.returned, sent, pending.inserts)
  uow.applyFlushed(pending, sent, upsertCount, filled, editsAtPending)
  return {
    ...base,
    roundTrips: result.roundTrips,
    connectRoundTrips: result.connectRoundTrips,
    connected: result.opened,
    idFetch,
    statements: plan.waves.reduce((n, w) => n + w.length, 0),
    waves: plan.waves.length,
    durationMs: performance.now() - started,
    bytesSent: result.bytes?.sent,
    bytesReceived: result.bytes?.received,
    summary: planSummary(plan),
  }
}

/**
 * The plan the next flush of `uow` would send, ids not yet assigned shown as placeholders (`-1`,
 * `-2`...). Validates every value.
 */
export function planUnitOfWork(uow: UnitOfWork, context: PlanContext): FlushPlan {
  const pending = uow.pending()
  const changes = toChangeSet(pending, uow, provisionalIds(newRows(pending)))
  return finishPlan(planFlush(context.schema, changes), context)
}

/** What turns a change set's plan into what a flush sends. */
type PlanContext = Pick<FlushContext, 'schema' | 'serverValues' | 'copyRows'>

/** `plan` reading back the values the server fills, its large inserts sent as COPY. */
function finishPlan(plan: FlushPlan, context: PlanContext): FlushPlan {
  const reading = withServerValues(plan, context.schema, context.serverValues)
  return withCopies(reading, context.schema, context.copyRows)
}

/** The plan and the sent values, from the unit of work as it is now (ids assigned). */
function prepare(uow: UnitOfWork, context: PlanContext, pending: PendingChanges): Prepared {
  const changes = toChangeSet(pending, uow)
  return {
    plan: finishPlan(planFlush(context.schema, changes), context),
    sent: uow.sentValues(pending, changes),
  }
}

/** A plan made with placeholder ids, what it sends of each entity, and the placeholders. */
interface Provisional {
  readonly plan: FlushPlan
  /** Taken with the plan only when it may be rebound (plain inserts). */
  readonly sent: SentValues | undefined
  readonly ids: ProvisionalIds
}

/**
 * Plans with placeholder ids: bad input fails before anything is sent, the id fetch included. The
 * plan is kept: once the ids are fetched, a flush of plain inserts rebinds it to them instead of
 * planning again (`rebindFlush`).
 */
function planWithPlaceholders(
  uow: UnitOfWork,
  schema: SchemaModel,
  pending: PendingChanges,
  rows: readonly EntityState[],
): Provisional {
  const ids = provisionalIds(rows)
  const changes = toChangeSet(pending, uow, ids)
  const plan = planFlush(schema, changes)
  return { plan, ids, sent: plainInserts(pending) ? uow.sentValues(pending, changes) : undefined }
}

/** The placeholder plan rebound to the ids fetched, finished as {@link prepare} would; or undefined. */
function rebound(
  provisional: Provisional | undefined,
  pending: PendingChanges,
  context: PlanContext,
): Prepared | undefined {
  if (provisional?.sent === undefined) return undefined
  const done = rebindFlush(provisional.plan, provisional.sent, pending, provisional.ids)
  return done && { plan: finishPlan(done.plan, context), sent: done.sent }
}

/**
 * Fills the id pool on the flush's connection (other flushes share the pool and may take ids
 * meanwhile, hence up to three fetches), then takes this flush's ids at once.
 */
async function takeIds(
  ids: IdAllocator,
  need: ReadonlyMap<string, number>,
  rows: readonly EntityState[],
  query: IdQuery,
): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const short = ids.missing(need)
    if (short.size === 0) break
    await ids.fill(query, short)
  }
  assignIds(rows, need, ids)
}

/** Whether `pending` holds inserts only. */
function plainInserts(pending: PendingChanges): boolean {
  return pending.updates.length + pending.deletes.length + pending.upserts.length === 0
}

/** The new rows of a flush, inserts then upserts: the rows that may need ids. */
function newRows(pending: PendingChanges): EntityState[] {
  return [...pending.inserts, ...pending.upserts.map((u) => u.state)]
}
