import type { BoundValue, ClientMessage, ClientMessageType } from './client-messages.ts'

/** A message a connection received, in the order the server read it. */
export interface ReceivedMessage {
  /** The connection's number (1 for the first the server accepted). */
  readonly connection: number
  /** Its number on the connection (1-based, the startup messages included). */
  readonly n: number
  readonly type: ClientMessageType
  /**
   * Query: its text; Parse: the statement's text; Bind: the text of the statement it binds; Execute:
   * the text of the statement its portal runs (undefined when skipped after an error); else undefined.
   */
  readonly text: string | undefined
  /** Query: its statements, split as the server runs them; else undefined. */
  readonly statements: readonly string[] | undefined
  /** Bind: its parameters; else undefined. */
  readonly params: readonly BoundValue[] | undefined
  /** Which of the connection's incoming data chunks (the client's writes, as they arrived) held its end (1-based). */
  readonly write: number
  /** Which round trip of the connection it came in (1-based; see {@link ConnectionLog.roundTrips}). */
  readonly roundTrip: number
  /** Offsets of its first and past its last byte in what the connection received. */
  readonly start: number
  readonly end: number
  readonly message: ClientMessage
}

/** A statement the server ran (or refused), and what it answered. */
export interface ExecutedStatement {
  readonly connection: number
  readonly text: string
  readonly params: readonly BoundValue[]
  readonly protocol: 'simple' | 'extended'
  /** The command tag it answered (`INSERT 0 1`), or `ERROR <sqlstate>`. */
  readonly result: string
}

/** How a transaction ended. `lost`: its connection ended while it was open (the server rolls it back). */
export type TransactionOutcome = 'open' | 'committed' | 'rolled back' | 'lost'

/** A transaction the server ran: an explicit block (BEGIN...) or an implicit one (a message's statements). */
export interface TransactionRecord {
  readonly connection: number
  readonly explicit: boolean
  /** Its statements, BEGIN and COMMIT left out. */
  readonly statements: readonly string[]
  readonly outcome: TransactionOutcome
}

/** What one connection did. */
export interface ConnectionLog {
  readonly id: number
  /** The process id of its BackendKeyData. */
  readonly processId: number
  readonly secret: number
  /** The parameters of its StartupMessage (user, database...). */
  readonly startup: Readonly<Record<string, string>> | undefined
  readonly messages: readonly ReceivedMessage[]
  /** Chunks of data received: the client's writes as they arrived (writes close together may arrive as one). */
  readonly writes: number
  /**
   * Round trips: the times the client sent data after the server had written since the client's
   * previous data (its first data counts one), as the server sees them.
   */
  readonly roundTrips: number
  readonly bytesReceived: number
  readonly bytesSent: number
  readonly transactions: readonly TransactionRecord[]
  /** Whether the connection ended, and who ended it. */
  readonly ended: 'no' | 'by the client' | 'by the server' | 'by a reset'
  /** The transaction status it would report now (`I`, `T`, `E`). */
  readonly status: 'I' | 'T' | 'E'
}

/** A connection's log as the server writes it. */
export class ConnectionRecord implements ConnectionLog {
  readonly id: number
  readonly processId: number
  readonly secret: number
  startup: Readonly<Record<string, string>> | undefined
  messages: ReceivedMessage[] = []
  writes = 0
  roundTrips = 0
  bytesReceived = 0
  bytesSent = 0
  transactions: TransactionRecord[] = []
  ended: ConnectionLog['ended'] = 'no'
  status: 'I' | 'T' | 'E' = 'I'
  /** Messages received since the connection opened (not cleared by a reset of the log). */
  messageCount = 0
  /** Whether the server wrote since the client's last data. */
  answered = true

  constructor(id: number, processId: number, secret: number) {
    this.id = id
    this.processId = processId
    this.secret = secret
  }

  /** Data arrived: the write and the round trip it belongs to. */
  received(bytes: number): { write: number; roundTrip: number } {
    this.writes++
    this.bytesReceived += bytes
    if (this.answered) {
      this.roundTrips++
      this.answered = false
    }
    return { write: this.writes, roundTrip: this.roundTrips }
  }

  sent(bytes: number): void {
    this.bytesSent += bytes
    this.answered = true
  }

  reset(): void {
    this.messages = []
    this.writes = this.roundTrips = this.bytesReceived = this.bytesSent = 0
    this.transactions = this.transactions.filter((t) => t.outcome === 'open')
    this.answered = true
  }
}

/**
 * What the scripted server received and did, per connection and in order.
 *
 * @example
 * const server = await startScriptedServer()
 * // ... a flush in `burst` on a client of server.url
 * server.log.connections[0]?.messages.map((m) => m.type) // [..., 'Query']
 * server.log.committed() // the statements of the committed transactions
 * server.log.reset() // counts from here on
 */
export interface ScriptedLog {
  /** Every connection the server accepted, in order (each one's own log is reset by {@link reset}). */
  readonly connections: readonly ConnectionLog[]
  /** The connection numbered `id` (1 for the first). */
  connection(id: number): ConnectionLog | undefined
  /** The messages of every connection, in the order the server read them. */
  readonly messages: readonly ReceivedMessage[]
  /** Every statement run or refused, in order, with its result. */
  readonly executed: readonly ExecutedStatement[]
  /** Statements no handler and no default answered (each got an ErrorResponse XX000). */
  readonly unanswered: readonly string[]
  /** CancelRequests received (each on a connection of its own, closed at once). */
  readonly cancels: readonly { readonly processId: number; readonly secret: number }[]
  /** Errors of the server itself: handlers that threw (their statements answered XX000); kept by {@link reset}. */
  readonly failures: readonly unknown[]
  /** Round trips of every connection. */
  readonly roundTrips: number
  /** The transactions that committed, in the order they did. */
  readonly committedTransactions: readonly TransactionRecord[]
  /** The statements of the transactions that committed, in order. */
  committed(): string[]
  /**
   * Starts over: forgets the messages, statements, committed transactions, counts and round trips so
   * far (a client's next write counts as a round trip), keeping the connections and their open
   * transactions.
   */
  reset(): void
}

/** The log as the server writes it. */
export class ServerLog implements ScriptedLog {
  readonly #connections: ConnectionRecord[] = []
  #messages: ReceivedMessage[] = []
  #executed: ExecutedStatement[] = []
  #unanswered: string[] = []
  #cancels: { readonly processId: number; readonly secret: number }[] = []
  #committed: TransactionRecord[] = []
  #failures: unknown[] = []
  #onCommit: ((transaction: TransactionRecord) => void) | undefined

  get connections(): readonly ConnectionLog[] {
    return this.#connections
  }

  connection(id: number): ConnectionLog | undefined {
    return this.#connections[id - 1]
  }

  get messages(): readonly ReceivedMessage[] {
    return this.#messages
  }

  get executed(): readonly ExecutedStatement[] {
    return this.#executed
  }

  get unanswered(): readonly string[] {
    return this.#unanswered
  }

  get cancels(): readonly { readonly processId: number; readonly secret: number }[] {
    return this.#cancels
  }

  get failures(): readonly unknown[] {
    return this.#failures
  }

  get roundTrips(): number {
    return this.#connections.reduce((n, c) => n + c.roundTrips, 0)
  }

  get committedTransactions(): readonly TransactionRecord[] {
    return this.#committed
  }

  committed(): string[] {
    return this.#committed.flatMap((t) => t.statements)
  }

  reset(): void {
    for (const c of this.#connections) c.reset()
    this.#messages = []
    this.#executed = []
    this.#unanswered = []
    this.#cancels = []
    this.#committed = []
  }

  addConnection(record: ConnectionRecord): void {
    this.#connections.push(record)
  }

  addMessage(record: ConnectionRecord, message: ReceivedMessage): void {
    record.messages.push(message)
    this.#messages.push(message)
  }

  addExecuted(statement: ExecutedStatement): void {
    this.#executed.push(statement)
  }

  addUnanswered(text: string): void {
    this.#unanswered.push(text)
  }

  addFailure(error: unknown): void {
    this.#failures.push(error)
  }

  addCancel(processId: number, secret: number): void {
    this.#cancels.push({ processId, secret })
  }

  addCommitted(transaction: TransactionRecord): void {
    this.#committed.push(transaction)
    this.#onCommit?.(transaction)
  }

  /** Calls `listener` at each commit (the server's own bookkeeping: the flush log). */
  onCommit(listener: (transaction: TransactionRecord) => void): void {
    this.#onCommit = listener
  }
}
