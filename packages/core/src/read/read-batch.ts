import { reservationError } from '../connection/connection-errors.ts'
import type { Row } from '../drivers/driver.ts'
import { errors, PipeflushError } from '../errors.ts'
import { type ReadContext, routeReads } from './read-router.ts'
import type { ReadStatement } from './read-statement.ts'

export type { ReadStatement } from './read-statement.ts'

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
 * goes in one message on one connection, one round trip (where: `routeReads`; how: `sendSelects`).
 * One batch at a time: a read started while one is in flight goes with the next, and a batch started
 * while the unit's flush is being sent goes once it is over (it reads what the flush wrote). A batch
 * settles like a flush: within the deadline, promptly when its connection dies, every read in it
 * failing with a coded error (`CONNECTION_LOST`, `QUERY_TIMEOUT`). When the server rejects a select of a
 * simple-protocol batch (which ends the message there), each read of the batch is sent again on its
 * own, so that only the failing one fails.
 *
 * @example
 * const batch = new ReadBatch(context)
 * const [a, b] = await Promise.all([batch.read([s1], 'Reading a'), batch.read([s2], 'Reading b')]) // one round trip
 */
export class ReadBatch {
  readonly #context: ReadContext
  /** The reads of the next batch: this tick's, and every one started while a batch is in flight. */
  #waiting: BatchItem[] = []
  /**
   * What the waiting reads hold of the client (see `Driver.admit`): started before the application
   * ended it, their batch is served, and the end waits for it.
   */
  #admitted: (() => void)[] = []
  #grouped = new Map<string, BatchItem>()
  #scheduled = false
  /** A batch is in flight, or the next one waits for the unit's flush being sent: reads gather. */
  #busy = false

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

  /**
   * Joins `item` to the next batch: this tick's, or the one after the batch in flight. Refused at
   * once, as a lost connection, when the application ended the client before it was started.
   */
  add(item: BatchItem): void {
    const admitted = this.#context.connections.driver.admit()
    if (typeof admitted !== 'function') {
      item.fail(reservationError(admitted, { what: item.what, timeoutMs: this.#context.timeoutMs }))
      return
    }
    this.#admitted.push(admitted)
    this.#waiting.push(item)
    if (!this.#busy) this.#schedule()
  }

  /**
   * The item of the next batch grouped under `key` (loads of one table by key, gathered into one
   * select), made by `make` the first time.
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

  /** Every read started in this tick (its microtasks included) joins: the batch goes in the next macrotask. */
  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#start()
    })
  }

  /**
   * Sends the waiting reads, after the unit's flush being sent, if any (they read what it wrote).
   * Reads started meanwhile, or while the batch is in flight, wait for the next one, which goes in
   * the macrotask after this one settled (the reads its results start join it).
   */
  #start(): void {
    if (this.#busy || this.#waiting.length === 0) return
    this.#busy = true
    const flush = this.#context.connections.sending
    const sent =
      flush === undefined
        ? this.#send(this.#take())
        : flush.then(() => {
            this.#busy = false
            this.#schedule()
          })
    void sent.then(() => {
      this.#busy = false
      if (this.#waiting.length > 0) this.#schedule()
    })
  }

  #take(): BatchItem[] {
    const items = this.#waiting
    this.#waiting = []
    if (this.#grouped.size > 0) this.#grouped = new Map()
    return items
  }

  /** Sends `items` and settles each (never rejects), then lets the client's end go on (see {@link add}). */
  async #send(items: readonly BatchItem[]): Promise<void> {
    const admitted = this.#admitted
    this.#admitted = []
    try {
      await this.#sendAdmitted(items)
    } finally {
      for (let i = 0; i < admitted.length; i++) admitted[i]!()
    }
  }

  async #sendAdmitted(items: readonly BatchItem[]): Promise<void> {
    const context: ReadContext = { ...this.#context, admitted: true }
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
    const heldBefore = context.connections.held
    const openBefore = heldBefore?.open === true
    try {
      const rowSets = await routeReads(
        context,
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
      if (live.length > 1 && (error.code === 'STATEMENT_FAILED' || error.code === 'READ_ONLY_SERVER')) {
        // The server ended the message at the failing select: each read again, on its own. When the
        // batch went in the locking transaction, the failure ended it: the reads go again outside it,
        // and one that locks fails, its rows read but its locks not held.
        const held = context.connections.held
        const ended =
          held !== undefined && !held.open && (held !== heldBefore || openBefore) ? held.ended : undefined
        const again: ReadContext = ended === undefined ? context : { ...context, unheld: true }
        for (const { item, statements } of live) {
          try {
            const rowSets = await routeReads(again, statements, item.what)
            if (ended !== undefined && statements.some((s) => s.locking === true))
              item.fail(errors.lockNotHeld(item.what, ended))
            else settle(item, rowSets)
          } catch (own) {
            item.fail(own as PipeflushError)
          }
        }
        return
      }
      for (const { item } of live) item.fail(error)
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
