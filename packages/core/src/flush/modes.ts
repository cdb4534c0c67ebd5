import type {
  DriverError,
  PipelinedStatement,
  Row,
  SimpleResult,
  StatementResult,
} from '../drivers/driver.ts'
import { errors } from '../errors.ts'
import type { SchemaModel } from '../model/model.ts'
import { planStatements } from '../plan/format-plan.ts'
import type { FlushPlan, PlannedStatement } from '../plan/types.ts'
import { rejectedStatement } from './failed-statement.ts'
import { flushLogInsert } from './flush-log.ts'
import type { FlushSession } from './flush-session.ts'
import type { FlushSettings } from './flush-settings.ts'
import { firstRejection, someServerRejection, statementError } from './outcome.ts'
import { hasCopy, pipelined, SEPARATOR, simpleBatch, statementAt } from './statement-text.ts'

/**
 * The rows each statement of the plan returned, in `plan.waves.flat()` order: undefined for the
 * statements that return none (see `PlannedStatement.returning`).
 */
export type ReturnedRows = readonly (readonly Row[] | undefined)[]

/** The settings a mode sends with (see {@link FlushSettings}). */
type ModeSettings = Pick<FlushSettings, 'named' | 'preparedBurst' | 'flushLog'> &
  Partial<Pick<FlushSettings, 'localSettings'>> & {
    /** Tells which statement of a message a rejection names, where the server did not say (see `statementAt`). */
    readonly schema?: SchemaModel | undefined
  }

/** No flush log: nothing inserted before the plan. */
const NOTHING_LOGGED: readonly string[] = []

/** What a mode sends: the plan of the flush `flushId`, and the flush log's insert first (see `flushLogInsert`). */
interface Sending {
  readonly plan: FlushPlan
  /** The data of the COPY statements written from their rows (see `CompletedPlan.copies`). */
  readonly copies: ReadonlyMap<PlannedStatement, Iterable<Buffer>>
  readonly flushId: string
  /**
   * What goes first inside the transaction: the local settings' `SET LOCAL`s (not in a transaction
   * held open, whose locking read set them), then the flush log's insert (none without a flush log).
   */
  readonly logged: readonly string[]
  readonly settings: ModeSettings
  /**
   * The transaction is open already (a locking read began it on this connection): no BEGIN; the
   * statements and COMMIT only.
   */
  readonly inTransaction: boolean
}

/**
 * Sends the plan of the flush `flushId` on `fs` in `settings.mode`, the flush log's insert first
 * inside its transaction: the rows each statement returned (see {@link ReturnedRows}). `copies`: the
 * data of the COPY statements written from their rows.
 *
 * The flush is the same whatever the mode: only how its statements are split into messages differs.
 */
export function sendByMode(
  fs: FlushSession,
  plan: FlushPlan,
  settings: ModeSettings & Pick<FlushSettings, 'mode'>,
  flushId: string,
  copies: ReadonlyMap<PlannedStatement, Iterable<Buffer>> = new Map(),
): Promise<ReturnedRows> {
  const inTransaction = fs.continued
  const local = inTransaction ? NOTHING_LOGGED : (settings.localSettings?.texts ?? NOTHING_LOGGED)
  const log = settings.flushLog === undefined ? NOTHING_LOGGED : flushLogInsert(settings.flushLog, flushId)
  const logged = local.length === 0 ? log : log.length === 0 ? local : [...local, ...log]
  const sending: Sending = { plan, copies, flushId, logged, settings, inTransaction }
  return settings.mode === 'burst'
    ? sendBurst(fs, sending)
    : settings.mode === 'waves'
      ? sendWaves(fs, sending)
      : sendOff(fs, sending)
}

/**
 * `burst`: the whole transaction in one round trip: every statement in one simple-protocol message
 * without BEGIN, which the server runs as one implicit transaction, all or nothing. With
 * `preparedBurst`, or in a transaction held open, on a session that pipelines (node-postgres in
 * `pipeline` mode, `prepare: true`):
 * BEGIN, every named statement and COMMIT written at once, each with its own Sync; a failing statement
 * makes the later ones fail and the COMMIT answer ROLLBACK. The one message is the default because it
 * measured faster on the realistic workload (one answer instead of one per statement, less client
 * CPU); named statements spare the server parsing and planning shapes it has seen on the connection.
 * Either way the COMMIT leaves with the statements, so a connection lost before the answer leaves the
 * outcome unknown unless the server already rejected a statement. A plan with an insert sent as COPY
 * (`statement.copy`) goes as the one message, the COPY data written right behind it.
 */
async function sendBurst(fs: FlushSession, input: Sending): Promise<ReturnedRows> {
  const statements = planStatements(input.plan)
  // A transaction a pipelining session holds open was begun pipelined (its locking read): it ends
  // pipelined too, its COMMIT a statement of its own. A middleware that balances reads (Pgpool-II)
  // sent that BEGIN to a standby as well, and passes on a COMMIT alone, never one ending a message
  // of several statements: the standby's session stayed in the transaction, its settings with it.
  const asPipeline = input.settings.preparedBurst || input.inTransaction
  if (fs.session.pipeline && asPipeline && !hasCopy(statements)) {
    const begin: PipelinedStatement[] = input.inTransaction ? [] : [{ text: 'begin', params: [] }]
    const batch: PipelinedStatement[] = [
      ...begin,
      ...input.logged.map((text) => ({ text, params: [] })),
      ...statements.map((s) => pipelined(s, input.settings.named)),
      { text: 'commit', params: [] },
    ]
    const planned = [
      ...begin.map(() => undefined),
      ...input.logged.map(() => undefined),
      ...statements,
      undefined,
    ]
    const results = await fs.pipeline(batch, { commits: true })
    settlePipelined(fs, results, planned, input.flushId, input.settings.schema)
    return pipelinedRows(statements, results.slice(begin.length + input.logged.length))
  }
  const batch = simpleBatch(
    input.logged.length === 0 ? statements : [...input.logged, ...statements],
    input.copies,
  )
  const rowSets = rowSetCount(statements)
  try {
    if (!input.inTransaction) {
      return simpleRows(
        statements,
        await fs.simple(batch.text, { commits: true, copies: batch.copies, rowSets }),
      )
    }
    // Inside the open transaction, the message ends with its COMMIT.
    const text = `${batch.text}${SEPARATOR}commit`
    const answer = await fs.simple(text, { commits: true, copies: batch.copies, rowSets })
    if (answer.lastCommand !== 'COMMIT') throw errors.rolledBack(input.flushId, answer.lastCommand)
    return simpleRows(statements, answer)
  } catch (e) {
    // A statement failed inside the open transaction: aborted, it is rolled back as the connection
    // goes back (see `HeldTransaction.taken`), once.
    throw serverError(fs, e, (d) =>
      statementError(d, statementAt(batch, d, input.settings.schema), input.flushId, input.settings.schema),
    )
  }
}

/**
 * `waves`: BEGIN, then each wave's statements together (pipelined, or one simple-protocol message),
 * then COMMIT, each awaited: 2 + waves round trips.
 */
async function sendWaves(fs: FlushSession, input: Sending): Promise<ReturnedRows> {
  const rows: (readonly Row[] | undefined)[] = []
  await inTransaction(fs, input, async () => {
    for (const wave of input.plan.waves) rows.push(...(await sendTogether(fs, wave, input)))
  })
  return rows
}

/** `off`: BEGIN, every statement, COMMIT, each awaited (what ORMs do): 2 + statements round trips. */
async function sendOff(fs: FlushSession, input: Sending): Promise<ReturnedRows> {
  const rows: (readonly Row[] | undefined)[] = []
  await inTransaction(fs, input, async () => {
    for (const statement of planStatements(input.plan))
      rows.push(...(await sendTogether(fs, [statement], input)))
  })
  return rows
}

/**
 * Statements sent in one round trip inside an open transaction (pipelined, or one simple-protocol
 * message, always so when one goes as COPY); throws the first failure, else gives the rows each
 * returned.
 */
async function sendTogether(
  fs: FlushSession,
  statements: readonly PlannedStatement[],
  input: Sending,
): Promise<ReturnedRows> {
  if (fs.session.pipeline && !hasCopy(statements)) {
    const results = await fs.pipeline(statements.map((s) => pipelined(s, input.settings.named)))
    const failure = firstRejection(results, statements, input.flushId, input.settings.schema)
    if (failure) {
      fs.serverRejected = true
      throw failure
    }
    const lost = results.find((r) => r.status === 'rejected')
    if (lost?.status === 'rejected') throw lost.reason
    return pipelinedRows(statements, results)
  }
  const batch = simpleBatch(statements, input.copies)
  try {
    const rowSets = rowSetCount(statements)
    return simpleRows(statements, await fs.simple(batch.text, { copies: batch.copies, rowSets }))
  } catch (e) {
    throw serverError(fs, e, (d) =>
      statementError(d, statementAt(batch, d, input.settings.schema), input.flushId, input.settings.schema),
    )
  }
}

/**
 * The preamble (BEGIN, and the flush log's insert) awaited, `body`, then COMMIT awaited and checked. After a
 * statement failed, a ROLLBACK ends the transaction before the connection goes back to the pool.
 */
async function inTransaction(fs: FlushSession, input: Sending, body: () => Promise<void>): Promise<void> {
  try {
    const preamble = input.inTransaction ? input.logged : ['begin', ...input.logged]
    try {
      if (preamble.length > 0) await fs.simple(preamble.join(SEPARATOR), { rowSets: 0 })
    } catch (e) {
      throw serverError(fs, e, (d) => statementError(d, undefined, input.flushId))
    }
    await body()
  } catch (e) {
    // The open transaction a locking read began is rolled back as its connection goes back (once).
    if (fs.serverRejected && fs.usable && !input.inTransaction) await fs.simple('rollback').catch(() => {})
    throw e
  }
  let lastCommand: string
  try {
    lastCommand = (await fs.simple('commit', { commits: true, rowSets: 0 })).lastCommand
  } catch (e) {
    // A deferred constraint checked as the transaction ends: the statement of the table it names.
    const { plan, settings, flushId } = input
    throw serverError(fs, e, (d) =>
      statementError(
        d,
        rejectedStatement(planStatements(plan), d, settings.schema),
        flushId,
        settings.schema,
      ),
    )
  }
  if (lastCommand !== 'COMMIT') throw errors.rolledBack(input.flushId, lastCommand)
}

/**
 * Reads the settled BEGIN, statements and COMMIT of a pipelined burst: success when the COMMIT
 * committed and nothing failed; else the statement error that explains it, or the lost connection.
 */
function settlePipelined(
  fs: FlushSession,
  results: readonly PromiseSettledResult<{ command: string }>[],
  planned: readonly (PlannedStatement | undefined)[],
  flushId: string,
  schema: SchemaModel | undefined,
): void {
  const commit = results[results.length - 1]
  const settled = results as PromiseSettledResult<{ command: string; rows: readonly never[] }>[]
  if (someServerRejection(settled)) fs.serverRejected = true
  const failure = firstRejection(settled, planned, flushId, schema)
  if (commit?.status === 'fulfilled') {
    if (commit.value.command === 'COMMIT' && failure === undefined) {
      const lost = results.find((r) => r.status === 'rejected')
      if (lost?.status === 'rejected') throw lost.reason // a statement without an answer: never a success
      return
    }
    throw failure ?? errors.rolledBack(flushId, commit.value.command)
  }
  if (failure) throw failure
  throw commit?.status === 'rejected' ? commit.reason : errors.rolledBack(flushId, 'nothing')
}

/** The rows of the statements that return some, from their pipelined results (in the same order). */
function pipelinedRows(
  statements: readonly PlannedStatement[],
  results: readonly PromiseSettledResult<StatementResult>[],
): ReturnedRows {
  return statements.map((s, i) => {
    const r = results[i]
    return s.returning !== undefined && r?.status === 'fulfilled' ? r.value.rows : undefined
  })
}

/**
 * The rows of the statements that return some, from a simple-protocol answer: every update and
 * delete answers one row set (its row count), an insert one when it has a returning list; the flush
 * log's insert answers none.
 */
function simpleRows(statements: readonly PlannedStatement[], result: SimpleResult): ReturnedRows {
  let next = 0
  return statements.map((s) => {
    if (!answersRows(s)) return undefined
    const rows = result.rowSets[next++]
    return s.returning === undefined ? undefined : rows
  })
}

/** How many row sets a simple-protocol answer to `statements` holds (see {@link simpleRows}). */
function rowSetCount(statements: readonly PlannedStatement[]): number {
  let n = 0
  for (const s of statements) if (answersRows(s)) n++
  return n
}

function answersRows(s: PlannedStatement): boolean {
  return s.kind !== 'insert' || s.returning !== undefined
}

/**
 * A server error of a send as the flush's error (recording that the server rejected a statement);
 * anything else (a lost connection, a timeout) is rethrown for the outcome rules.
 */
function serverError(fs: FlushSession, e: unknown, classify: (d: DriverError) => Error): unknown {
  const d = e as DriverError
  if (d?.kind === 'server') {
    fs.serverRejected = true
    return classify(d)
  }
  return e
}
