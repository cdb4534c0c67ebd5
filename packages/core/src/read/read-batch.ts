import type { Driver, Param, Row } from '../drivers/driver.ts'
import { GuardedSession } from '../drivers/guarded-session.ts'
import { inlineParams } from '../drivers/inline-params.ts'
import { errors, PipeflushError } from '../errors.ts'
import { redactError } from '../flush/redact.ts'
import { statementName } from '../flush/statement-text.ts'
import { log } from '../observe/logger.ts'
import type { Observe } from '../observe/observe-flush.ts'
import {
  type Attributes,
  failSpan,
  inSpan,
  serverAttributes,
  startSpan,
  type TraceSpan,
} from '../observe/tracing.ts'
import type { HeldTransaction } from './held-transaction.ts'
import { readError, reservationError } from './read-errors.ts'
import { LAG_STATEMENT, pinnedToPrimary, REPLICA_REFUSALS, type ReplicaSet, replicaSafe } from './replicas.ts'

/** How reads run: on which client, within how long, named or not. */
export interface ReadContext {
  readonly driver: Driver
  readonly timeoutMs: number
  /**
   * Whether statements may be named (prepared once per connection): no transaction pooler in between,
   * or the application said so (`prepare: true`). A pipelining driver then pipelines a batch's selects
   * with their own Syncs; else the batch is one simple-protocol message, because a transaction pooler
   * (PgBouncer, Supavisor) gives the server connection back at the first ReadyForQuery outside a
   * transaction, and the answers to the selects after it go to another client.
   */
  readonly named: boolean
  /** Spans and logs (the `tracing` and `logger` options). */
  readonly observe?: Observe | undefined
  /** Replicas reads may go to (`driver` is the primary), unless `primaryOnly()` says otherwise. */
  readonly replicas?: ReplicaSet | undefined
  /** Whether this unit of work's reads go to the primary (it has written: it reads its own writes). */
  readonly primaryOnly?: (() => boolean) | undefined
  /**
   * The unit of work's locking transaction: locking reads begin it, and every read goes in it while it
   * is open (see {@link HeldTransaction}).
   */
  readonly held?: (() => HeldTransaction) | undefined
}

/** One select of a read: its text and text parameters (`$1`...). */
export interface ReadStatement {
  readonly text: string
  readonly params: readonly Param[]
  /** The table it reads (for spans and logs). */
  readonly table?: string | undefined
  /**
   * Read with the `lock` option: it begins the unit of work's locking transaction when none is open
   * (a locking clause the application wrote itself runs as it is, in that transaction when one is open).
   */
  readonly locking?: boolean | undefined
}

/**
 * What a read asks of the batch it joins: its statements (asked when the batch is sent, so reads of
 * one kind can gather until then), and what to do with their rows or with a failure.
 */
export interface BatchItem {
  /** Names the read in messages (`Reading book`). */
  readonly what: string
  statements(): readonly ReadStatement[]
  settle(rowSets: readonly (readonly Row[])[]): void
  fail(error: PipeflushError): void
}

/**
 * The reads of one unit of work: every read started in the same tick (before the batch is written)
 * goes in one message on one connection, one round trip: one simple-protocol message of selects (the
 * parameters written as literals), or, where the client pipelines and statements may be named (no
 * transaction pooler in between: see {@link ReadContext.named}), the selects pipelined with their own
 * Syncs, named, prepared once per connection. One batch at a time: a read started while one is
 * in flight goes with the next. A batch settles like a flush: within the deadline, promptly when its
 * connection dies, every read in it failing with a coded error (`CONNECTION_LOST`, `QUERY_TIMEOUT`).
 * When the server rejects a select of a simple-protocol batch (which ends the message there), each
 * read of the batch is sent again on its own, so that only the failing one fails.
 */
export class ReadBatch {
  readonly #context: ReadContext
  #waiting: BatchItem[] = []
  #grouped = new Map<string, BatchItem>()
  #scheduled = false
  /** The batch in flight, if any: the next one is sent once it settled. */
  #inFlight: Promise<void> = Promise.resolve()

  constructor(context: ReadContext) {
    this.#context = context
  }

  /** `statements` with the other reads of this tick: each one's rows. */
  read(statements: readonly ReadStatement[], what: string): Promise<(readonly Row[])[]> {
    return new Promise((resolve, reject) => {
      this.add({
        what,
        statements: () => statements,
        settle: (rowSets) => resolve([...rowSets]),
        fail: reject,
      })
    })
  }

  /** Joins `item` to the batch of this tick. */
  add(item: BatchItem): void {
    this.#waiting.push(item)
    this.#schedule()
  }

  /**
   * The item of this tick grouped under `key` (loads of one table by key, gathered into one select),
   * made by `make` the first time.
   */
  grouped<T extends BatchItem>(key: string, make: () => T): T {
    let item = this.#grouped.get(key) as T | undefined
    if (item === undefined) {
      item = make()
      this.#grouped.set(key, item)
      this.add(item)
    }
    return item
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    // Every read started in this tick (its microtasks included) joins: sent in the next macrotask.
    setImmediate(() => {
      const items = this.#waiting
      this.#waiting = []
      this.#grouped = new Map()
      this.#scheduled = false
      this.#inFlight = this.#inFlight.then(() => this.#send(items))
    })
  }

  async #send(items: readonly BatchItem[]): Promise<void> {
    const parts = items.map((item) => {
      try {
        return item.statements()
      } catch (e) {
        item.fail(e instanceof PipeflushError ? e : errors.internal('ReadBatch', String(e)))
        return undefined
      }
    })
    const live = items.flatMap((item, i) => (parts[i] === undefined ? [] : [{ item, statements: parts[i]! }]))
    if (live.length === 0) return
    const what = live.length === 1 ? live[0]!.item.what : `A batch of ${live.length} reads`
    try {
      const rowSets = await this.#run(
        live.flatMap((l) => l.statements),
        what,
      )
      let next = 0
      for (const { item, statements } of live) {
        const own = rowSets.slice(next, next + statements.length)
        next += statements.length
        settle(item, own)
      }
    } catch (e) {
      const error = e as PipeflushError
      if (live.length > 1 && error.code === 'STATEMENT_FAILED') {
        // The server ended the message at the failing select: each read again, on its own.
        for (const { item, statements } of live) {
          try {
            settle(item, await this.#run(statements, item.what))
          } catch (own) {
            item.fail(own as PipeflushError)
          }
        }
        return
      }
      for (const { item } of live) item.fail(error)
    }
  }

  /**
   * `statements` on one connection, in one round trip: each one's rows. On a replica when one is
   * usable and the unit of work has not written (its lag measured in the same message); on the
   * primary when not, or when the replica fails (it is then left out for a while).
   */
  async #run(statements: readonly ReadStatement[], what: string): Promise<(readonly Row[])[]> {
    const { replicas, primaryOnly } = this.#context
    const held = this.#context.held?.()
    if (held !== undefined && (held.open || statements.some((s) => s.locking === true))) {
      return this.#observed(
        this.#context.driver,
        statements,
        what,
        { 'pipeflush.server': 'primary (locking transaction)' },
        held,
      )
    }
    if (primaryOnly?.() === true) {
      // Its own writes: on the primary, and past a middleware that balances reads over standbys.
      const pinned = statements.map(pinnedToPrimary)
      if (replicas === undefined) return this.#observed(this.#context.driver, pinned, what, {})
      return this.#observed(this.#context.driver, pinned, what, {
        'pipeflush.server': 'primary (read your writes)',
      })
    }
    if (replicas === undefined) return this.#observed(this.#context.driver, statements, what, {})
    if (!statements.every((s) => replicaSafe(s.text)))
      return this.#observed(this.#context.driver, statements, what, {
        'pipeflush.server': 'primary (a statement that locks or writes)',
      })
    const picked = replicas.pick()
    if ('skipped' in picked) {
      const skipped = {
        'pipeflush.server': 'primary',
        'pipeflush.replicas_skipped': picked.skipped.join('; '),
      }
      return this.#observed(this.#context.driver, statements, what, skipped)
    }
    const server = { 'pipeflush.server': `replica ${picked.driver.address}` }
    let rowSets: (readonly Row[])[]
    try {
      // The lag first: what the statements after it read is at least as recent as what it measured.
      rowSets = await this.#observed(picked.driver, [LAG_STATEMENT, ...statements], what, server)
    } catch (e) {
      const error = e as PipeflushError
      const refused = error.code === 'STATEMENT_FAILED' && REPLICA_REFUSALS.has(error.sqlState ?? '')
      // A select of the application's that fails fails on the primary too; and a read that timed out
      // took its time already (reads settle within flushTimeoutMs): both fail as they are.
      if ((error.code === 'STATEMENT_FAILED' && !refused) || error.code === 'QUERY_TIMEOUT') {
        if (error.code === 'QUERY_TIMEOUT') replicas.failed(picked.index, error.code)
        throw error
      }
      if (!refused) replicas.failed(picked.index, error.code)
      return this.#observed(this.#context.driver, statements, what, {
        'pipeflush.server': 'primary',
        'pipeflush.replicas_skipped': `${picked.driver.address}: ${error.message}`,
      })
    }
    const lag = Number((rowSets[0]?.[0] as { lag?: unknown } | undefined)?.lag)
    const skipped = replicas.answered(picked.index, Number.isFinite(lag) ? lag : undefined)
    if (skipped === undefined) return rowSets.slice(1)
    // Lagging beyond the bound: what it read may be older than the application allows.
    return this.#observed(this.#context.driver, statements, what, {
      'pipeflush.server': 'primary',
      'pipeflush.replicas_skipped': `${picked.driver.address}: ${skipped}`,
    })
  }

  /** `statements` on a connection of `driver`, observed as one read (span, logs). */
  #observed(
    driver: Driver,
    statements: readonly ReadStatement[],
    what: string,
    extra: Attributes,
    held?: HeldTransaction,
  ): Promise<(readonly Row[])[]> {
    const { observe } = this.#context
    const tables = [...new Set(statements.flatMap((s) => (s.table === undefined ? [] : [s.table])))]
    const span = observe?.noSpans
      ? undefined
      : startSpan('pipeflush read', 'client', () => ({
          'db.system.name': 'postgresql',
          'db.namespace': driver.database,
          'db.operation.name': statements.length === 1 ? 'SELECT' : 'BATCH SELECT',
          'db.operation.batch.size': statements.length > 1 ? statements.length : undefined,
          'db.query.summary': `SELECT ${tables.join(' ')}`.trim(),
          ...(observe?.statementTexts ? { 'db.query.text': statements.map((s) => s.text).join(';\n') } : {}),
          ...serverAttributes(driver.address),
          'pipeflush.driver': driver.name,
          ...extra,
        }))
    log(
      observe?.logger,
      'debug',
      { statements: statements.map((s) => ({ table: s.table, sql: s.text })) },
      'pipeflush: reads',
    )
    const exchange = () =>
      held === undefined
        ? this.#exchange(driver, statements, what, span)
        : held.read(statements, what, this.#context.timeoutMs)
    return inSpan(span, exchange).then(
      (rowSets) => {
        span?.end()
        return rowSets
      },
      (e: unknown) => {
        failSpan(span, e)
        const fields = { code: (e as { code?: unknown }).code, message: (e as Error).message }
        log(observe?.logger, 'warn', fields, 'pipeflush: read failed')
        throw e
      },
    )
  }

  async #exchange(
    driver: Driver,
    statements: readonly ReadStatement[],
    what: string,
    span: TraceSpan | undefined,
  ): Promise<(readonly Row[])[]> {
    const { timeoutMs } = this.#context
    const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
    let gs: GuardedSession
    try {
      gs = new GuardedSession(await driver.reserve({ deadline }), deadline)
    } catch (e) {
      throw redactError(reservationError(driver.toDriverError(e), what, timeoutMs))
    }
    try {
      if (!gs.session.pipeline || !this.#context.named) {
        const text = statements.map((s) => inlineParams(s.text, s.params)).join(';\n')
        return [...(await gs.simple(text, { rowSets: statements.length })).rowSets]
      }
      const results = await gs.pipeline(
        statements.map((s) => ({ text: s.text, params: s.params, name: statementName(s.text) })),
      )
      return results.map((r) => {
        if (r.status === 'rejected') throw r.reason
        return r.value.rows
      })
    } catch (e) {
      throw redactError(readError(e, what, timeoutMs))
    } finally {
      if (span !== undefined) {
        const bytes = gs.bytes()
        span.setAttributes({
          'pipeflush.round_trips': gs.roundTrips(),
          'pipeflush.bytes_sent': bytes?.sent,
          'pipeflush.bytes_received': bytes?.received,
        })
      }
      gs.release()
    }
  }
}

function settle(item: BatchItem, rowSets: readonly (readonly Row[])[]): void {
  try {
    item.settle(rowSets)
  } catch (e) {
    item.fail(e instanceof PipeflushError ? e : errors.internal('ReadBatch.settle', String(e)))
  }
}
