import type { ConnectionRecord, ServerLog, TransactionOutcome, TransactionRecord } from './connection-log.ts'

/** What a statement does to the transaction, told by its first words. */
export type StatementKind =
  | 'begin'
  | 'commit'
  | 'rollback'
  | 'savepoint'
  | 'release'
  | 'rollback-to'
  | 'other'

/**
 * The kind of a statement, from its normalized text (see `normalizeSql`).
 *
 * @example
 * statementKind('start transaction isolation level serializable') // 'begin'
 */
export function statementKind(normalized: string): StatementKind {
  const words = normalized.toLowerCase().replace(/;$/, '').split(/\s+/)
  const [first, second] = words
  if (first === 'begin' || (first === 'start' && second === 'transaction')) return 'begin'
  if (first === 'commit' || first === 'end') return second === 'prepared' ? 'other' : 'commit'
  if (first === 'rollback' || first === 'abort') {
    if (second === 'prepared') return 'other'
    return words.includes('to') ? 'rollback-to' : 'rollback'
  }
  if (first === 'savepoint') return 'savepoint'
  if (first === 'release') return 'release'
  return 'other'
}

/** Whether a statement may write: anything but a plain read or a session setting. */
export function writes(normalized: string): boolean {
  return !/^\(*\s*(select|show|values|table|set|reset|explain|fetch|declare|listen|discard)\b/i.test(
    normalized,
  )
}

/** A transaction as it runs (its record's fields change until it ends). */
interface Running {
  readonly connection: number
  explicit: boolean
  statements: string[]
  outcome: TransactionOutcome
}

/**
 * A connection's transaction status (`I` idle, `T` in a block, `E` in a failed block) and the record
 * of each transaction: an explicit block from BEGIN, or the implicit one of a message's statements
 * run outside a block (committed at the message's end, or at Sync, rolled back at an error).
 */
export class TransactionState {
  readonly #record: ConnectionRecord
  readonly #log: ServerLog
  #current: Running | undefined

  constructor(record: ConnectionRecord, log: ServerLog) {
    this.#record = record
    this.#log = log
  }

  get status(): 'I' | 'T' | 'E' {
    return this.#record.status
  }

  /** Whether a transaction (a block, or a message's implicit one) is open. */
  get open(): boolean {
    return this.#current !== undefined
  }

  /** Whether the open transaction is an implicit one that ran a statement that writes. */
  get implicitWrite(): boolean {
    const t = this.#current
    return t !== undefined && !t.explicit && t.statements.some((s) => writes(s.toLowerCase()))
  }

  /** A statement other than transaction control runs: in the open transaction, else in a new implicit one. */
  run(text: string): void {
    if (this.#current === undefined) this.#current = this.#start(false)
    this.#current.statements.push(text)
  }

  /** BEGIN: false when a block was open already (PostgreSQL warns and goes on). */
  begin(): boolean {
    if (this.#record.status !== 'I') return false
    if (this.#current === undefined) this.#current = this.#start(true)
    else this.#current.explicit = true
    this.#record.status = 'T'
    return true
  }

  /**
   * COMMIT: the tag PostgreSQL answers (`ROLLBACK` for a failed block), and whether a transaction was
   * open (PostgreSQL warns when none was).
   */
  commit(): { readonly tag: 'COMMIT' | 'ROLLBACK'; readonly open: boolean } {
    const status = this.#record.status
    const open = this.#current !== undefined
    this.#end(status === 'E' ? 'rolled back' : 'committed')
    return { tag: status === 'E' ? 'ROLLBACK' : 'COMMIT', open: open && status !== 'I' }
  }

  /** ROLLBACK: whether a block was open. */
  rollback(): boolean {
    const open = this.#record.status !== 'I'
    this.#end('rolled back')
    return open
  }

  /** A statement failed: a block is aborted (`E`), an implicit transaction rolled back. */
  failed(): void {
    if (this.#current?.explicit) this.#record.status = 'E'
    else this.#end('rolled back')
  }

  /** ROLLBACK TO SAVEPOINT: the block is usable again. */
  recovered(): void {
    if (this.#record.status === 'E') this.#record.status = 'T'
  }

  /** The end of a Query message or a Sync: an implicit transaction commits. */
  endImplicit(): void {
    if (this.#current !== undefined && !this.#current.explicit) this.#end('committed')
  }

  /** The connection ended: an open transaction is lost (the server rolls it back). */
  lost(): void {
    if (this.#current !== undefined) this.#end('lost')
  }

  #start(explicit: boolean): Running {
    const t: Running = { connection: this.#record.id, explicit, statements: [], outcome: 'open' }
    this.#record.transactions.push(t as TransactionRecord)
    return t
  }

  #end(outcome: TransactionOutcome): void {
    const t = this.#current
    this.#current = undefined
    this.#record.status = 'I'
    if (t === undefined) return
    t.outcome = outcome
    if (outcome === 'committed') this.#log.addCommitted(t)
  }
}
