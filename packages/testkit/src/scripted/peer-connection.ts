import type { Socket } from 'node:net'
import {
  type Answer,
  type ErrorFields,
  errorFieldCodes,
  type ResolvedAnswer,
  resolveAnswer,
  type ScriptedStatement,
} from './answers.ts'
import { type BoundValue, type ClientMessage, decodeClientMessage } from './client-messages.ts'
import type { ConnectionRecord, ReceivedMessage, ServerLog } from './connection-log.ts'
import type { ArmedFault } from './faults.ts'
import { type FramedMessage, FrameReader } from './frame-reader.ts'
import { answerOf, type HandlerList } from './handlers.ts'
import { serverMessages } from './server-messages.ts'
import { locateStatements, normalizeSql, splitStatements } from './split-statements.ts'
import { statementKind, TransactionState, writes } from './transaction-state.ts'

/** What a connection shares with the server. */
export interface PeerContext {
  readonly log: ServerLog
  /** The script's handlers, then (when on) the default answers. */
  readonly handlers: readonly HandlerList[]
  /** The faults armed now. */
  faults(): readonly ArmedFault[]
  /** The parameters reported to, and the settings of, a connection with this StartupMessage. */
  parameters(startup: Readonly<Record<string, string>>): {
    reported: Record<string, string>
    settings: Record<string, string>
  }
}

/** A message waiting to be read, with when it arrived; or the end of what a byte fault let through. */
type Incoming =
  | {
      readonly kind: 'message'
      readonly framed: FramedMessage
      readonly write: number
      readonly roundTrip: number
    }
  | { readonly kind: 'cut'; readonly fault: ArmedFault }

/** A message taken for handling, with the fault it sets off (if any). */
interface Taken {
  readonly received: ReceivedMessage
  readonly fault: ArmedFault | undefined
}

interface PreparedStatement {
  readonly text: string
  readonly parameterTypes: readonly number[]
}

interface Portal {
  readonly text: string
  readonly params: readonly BoundValue[]
  /** The answer, once a Describe or the first Execute asked for it. */
  answer?: Answer | undefined
  /** Rows not yet sent by an Execute with a row limit. */
  remaining?: ResolvedAnswer | undefined
  sent: number
}

/** SQLSTATE of a statement sent in a failed transaction block. */
const IN_FAILED_TRANSACTION: ErrorFields = {
  code: '25P02',
  message: 'current transaction is aborted, commands ignored until end of transaction block',
}

const COPY_FROM_STDIN = /^copy\b[\s\S]*\bfrom\s+stdin\b/i

/**
 * One client connection of the scripted server: reads its messages in order and answers them as
 * PostgreSQL would (startup, simple and extended protocol, COPY FROM STDIN, transaction status),
 * the statements answered by the script; writes its answers at the points PostgreSQL flushes
 * (ReadyForQuery, Flush, CopyInResponse); injects the armed faults; logs everything.
 */
export class PeerConnection {
  readonly record: ConnectionRecord
  readonly #socket: Socket
  readonly #context: PeerContext
  readonly #reader = new FrameReader()
  readonly #tx: TransactionState
  #incoming: Incoming[] = []
  #wake: (() => void) | undefined
  #inputEnded = false
  /** No more bytes are read (a byte fault cut the stream). */
  #cut = false
  #state: 'running' | 'hung' | 'ended' = 'running'
  #pending: Buffer[] = []
  #flushRequested = false
  #skipToSync = false
  readonly #statements = new Map<string, PreparedStatement>()
  readonly #portals = new Map<string, Portal>()
  /** Bytes received since the connection opened. */
  #bytes = 0
  /** Resolves when the connection ended and its loop stopped. */
  readonly done: Promise<void>

  constructor(socket: Socket, record: ConnectionRecord, context: PeerContext) {
    this.#socket = socket
    this.record = record
    this.#context = context
    this.#tx = new TransactionState(record, context.log)
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.#onData(chunk))
    socket.on('error', () => {}) // a reset by the client: 'close' follows
    socket.on('close', () => {
      if (this.record.ended === 'no') this.record.ended = 'by the client'
      this.#inputEnded = true
      this.#wakeUp()
    })
    this.done = this.#run()
  }

  /** Messages and bytes received so far (where a fault armed now starts counting). */
  get position(): { id: number; messages: number; bytes: number } {
    return { id: this.record.id, messages: this.record.messageCount, bytes: this.#bytes }
  }

  /** Ends the connection with a FIN, as a server whose backend exits. */
  end(): void {
    if (this.#state === 'ended') return
    this.#end('by the server')
    this.#wakeUp()
  }

  /** Ends the connection at once (the server stopping). */
  destroy(): void {
    if (this.record.ended === 'no') this.record.ended = 'by the server'
    this.#state = 'ended'
    this.#socket.destroy()
    this.#wakeUp()
  }

  #onData(chunk: Buffer): void {
    if (this.#cut || this.#state === 'ended') return
    const { write, roundTrip } = this.record.received(chunk.length)
    let data = chunk
    let cut: ArmedFault | undefined
    let cutAt = Number.POSITIVE_INFINITY
    for (const f of this.#context.faults()) {
      const offset = f.live(this.record.id) ? f.byteOffset(this.record.id) : undefined
      if (offset !== undefined && offset <= this.#bytes + chunk.length && offset < cutAt) {
        cut = f
        cutAt = offset
      }
    }
    if (cut !== undefined) {
      cut.fire()
      data = chunk.subarray(0, Math.max(0, cutAt - this.#bytes))
      this.#cut = true
    }
    this.#bytes += chunk.length
    for (const framed of this.#reader.push(data))
      this.#incoming.push({ kind: 'message', framed, write, roundTrip })
    if (cut !== undefined) this.#incoming.push({ kind: 'cut', fault: cut })
    this.#wakeUp()
  }

  #wakeUp(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  async #run(): Promise<void> {
    try {
      for (;;) {
        const taken = await this.#take()
        if (taken === undefined) break
        await this.#handle(taken.received.message)
        await this.#settle(taken)
        if (this.#state === 'ended') break
      }
    } catch (e) {
      // A fault of the server itself: the connection ends, and the log says why.
      this.#context.log.addFailure(e)
      this.destroy()
    } finally {
      this.#tx.lost()
      this.#state = 'ended'
      if (!this.#socket.destroyed) this.#socket.end()
    }
  }

  /**
   * The next message to handle, logged, after the fault it sets off before handling (if any); in a
   * hang, every message is logged and none handled. Undefined once the connection ended.
   */
  async #take(): Promise<Taken | undefined> {
    for (;;) {
      if (this.#state === 'ended') return undefined
      const item = this.#incoming.shift()
      if (item === undefined) {
        if (this.#inputEnded) return undefined
        await new Promise<void>((resolve) => {
          this.#wake = resolve
        })
        continue
      }
      if (item.kind === 'cut') {
        if (this.#state === 'running') await this.#act(item.fault) // fired as the bytes arrived
        continue
      }
      const received = this.#log(item)
      if (this.#state === 'hung') continue
      const fault = this.#faultFor(received)
      if (fault !== undefined && fault.when === 'before') {
        await this.#act(fault)
        if (this.#state !== 'running') continue
      }
      return { received, fault }
    }
  }

  /** After handling: the fault's action at its timing, and the answer written at a flush point. */
  async #settle(taken: Taken): Promise<void> {
    const { fault } = taken
    if (fault?.when === 'before-answer') {
      await this.#act(fault)
      if (this.#state !== 'running') return
    }
    if (this.#flushRequested) this.#flush()
    if (fault?.when === 'after-answer') {
      this.#flush()
      await this.#act(fault)
    }
  }

  #log(item: Extract<Incoming, { kind: 'message' }>): ReceivedMessage {
    const message = decodeClientMessage(item.framed)
    this.record.messageCount++
    const text =
      message.type === 'Query' || message.type === 'Parse'
        ? message.text
        : message.type === 'Bind'
          ? this.#statements.get(message.statement)?.text
          : message.type === 'Execute' && !this.#skipToSync
            ? this.#portals.get(message.portal)?.text
            : undefined
    const received: ReceivedMessage = {
      connection: this.record.id,
      n: this.record.messageCount,
      type: message.type,
      text,
      statements: message.type === 'Query' ? splitStatements(message.text) : undefined,
      params: message.type === 'Bind' ? message.params : undefined,
      write: item.write,
      roundTrip: item.roundTrip,
      start: item.framed.start,
      end: item.framed.end,
      message,
    }
    this.#context.log.addMessage(this.record, received)
    return received
  }

  /** The first live fault `received` sets off, fired (its action comes at its timing). */
  #faultFor(received: ReceivedMessage): ArmedFault | undefined {
    const f = this.#matchingFault(received)
    f?.fire()
    return f
  }

  #matchingFault(received: ReceivedMessage): ArmedFault | undefined {
    for (const f of this.#context.faults()) {
      if (!f.live(this.record.id)) continue
      const at = f.fault.at
      if (typeof at === 'function') {
        if (at(received)) return f
      } else if (at === 'commit') {
        if (this.#commits(received.message)) return f
      } else if ('message' in at) {
        if (f.messageNumber(this.record.id) === received.n) return f
      } else if ('statement' in at) {
        const texts =
          received.type === 'Query'
            ? (received.statements ?? [])
            : received.type === 'Execute'
              ? [received.text ?? '']
              : []
        if (texts.some((t) => textMatches(at.statement, t))) return f
      }
    }
    return undefined
  }

  /** Whether handling `m` commits a transaction (see `FaultTrigger`'s `'commit'`), told before handling it. */
  #commits(m: ClientMessage): boolean {
    if (m.type === 'Query') {
      let status = this.#tx.status
      let implicitWrite = false
      for (const s of splitStatements(m.text)) {
        const normalized = normalizeSql(s)
        const kind = statementKind(normalized)
        if (kind === 'begin') {
          if (status === 'I') status = 'T'
        } else if (kind === 'commit') {
          if (status === 'T') return true
          status = 'I'
        } else if (kind === 'rollback') {
          status = 'I'
        } else if (kind === 'other' && status === 'I' && writes(normalized)) {
          implicitWrite = true
        }
      }
      return implicitWrite && status === 'I'
    }
    if (m.type === 'Execute') {
      const text = this.#portals.get(m.portal)?.text
      return text !== undefined && statementKind(normalizeSql(text)) === 'commit' && this.#tx.status === 'T'
    }
    return m.type === 'Sync' && !this.#skipToSync && this.#tx.implicitWrite
  }

  /** The action of fault `f` (fired when it was set off). */
  async #act(f: ArmedFault): Promise<void> {
    const action = f.fault.action
    if (action === 'close') {
      this.#pending = []
      this.#end('by the server')
    } else if (action === 'reset') {
      this.#pending = []
      this.record.ended = 'by a reset'
      this.#state = 'ended'
      this.#socket.resetAndDestroy()
    } else if (action === 'hang') {
      this.#pending = []
      this.#state = 'hung'
    } else if ('delayMs' in action) {
      await new Promise((resolve) => setTimeout(resolve, action.delayMs))
    } else {
      const all = Buffer.concat(this.#pending)
      this.#pending = []
      this.#write(all.subarray(0, Math.max(0, action.partial)))
      this.#end('by the server')
    }
  }

  #end(how: 'by the server'): void {
    this.record.ended = how
    this.#state = 'ended'
    this.#socket.end()
  }

  #out(...messages: Buffer[]): void {
    this.#pending.push(...messages)
  }

  /** Writes what is pending in one write (a flush point of PostgreSQL's). */
  #flush(): void {
    this.#flushRequested = false
    if (this.#pending.length === 0) return
    const all = Buffer.concat(this.#pending)
    this.#pending = []
    this.#write(all)
  }

  #write(bytes: Buffer): void {
    if (bytes.length === 0 || this.#socket.destroyed || !this.#socket.writable) return
    this.#socket.write(bytes)
    this.record.sent(bytes.length)
  }

  async #handle(m: ClientMessage): Promise<void> {
    if (this.#skipToSync && m.type !== 'Sync' && m.type !== 'Terminate') return
    switch (m.type) {
      case 'SSLRequest':
      case 'GSSENCRequest':
        this.#out(serverMessages.refuseEncryption())
        this.#flushRequested = true
        return
      case 'StartupMessage':
        return this.#startup(m.version, m.parameters)
      case 'CancelRequest':
        this.#context.log.addCancel(m.processId, m.secret)
        this.#end('by the server')
        return
      case 'Query':
        return this.#query(m.text)
      case 'Parse':
        return this.#parse(m.name, m.text, m.parameterTypes)
      case 'Bind':
        return this.#bind(m.portal, m.statement, m.params, m.resultFormats)
      case 'Describe':
        return this.#describe(m.target, m.name)
      case 'Execute':
        return this.#execute(m.portal, m.maxRows)
      case 'Sync':
        this.#skipToSync = false
        this.#tx.endImplicit()
        if (this.#tx.status === 'I') this.#portals.clear()
        this.#ready()
        return
      case 'Flush':
        this.#flushRequested = true
        return
      case 'Close':
        if (m.target === 'S') this.#statements.delete(m.name)
        else this.#portals.delete(m.name)
        this.#out(serverMessages.closeComplete())
        return
      case 'Terminate':
        this.record.ended = 'by the client'
        this.#state = 'ended'
        this.#socket.end()
        return
      case 'CopyData':
      case 'CopyDone':
      case 'CopyFail':
        return // outside a COPY: ignored, as PostgreSQL does (the rest of a failed COPY's data)
      default:
        this.#fail({ code: '08P01', message: `invalid frontend message type ${m.code}`, severity: 'FATAL' })
    }
  }

  #startup(version: number, parameters: Readonly<Record<string, string>>): void {
    this.record.startup = parameters
    if (version !== 196608) {
      this.#fail({
        code: '0A000',
        message: `unsupported frontend protocol ${version >> 16}.${version & 0xffff}: server supports 3.0`,
        severity: 'FATAL',
      })
      return
    }
    const { reported } = this.#context.parameters(parameters)
    this.#out(serverMessages.authenticationOk())
    for (const [name, value] of Object.entries(reported))
      this.#out(serverMessages.parameterStatus(name, value))
    this.#out(serverMessages.backendKeyData(this.record.processId, this.record.secret))
    this.#ready()
  }

  #ready(): void {
    this.#out(serverMessages.readyForQuery(this.#tx.status))
    this.#flushRequested = true
  }

  /** An ErrorResponse; a FATAL one ends the connection once written. */
  #fail(error: ErrorFields): void {
    this.#out(serverMessages.errorResponse(errorFieldCodes(error)))
    if (error.severity === 'FATAL' || error.severity === 'PANIC') {
      this.#flush()
      this.#end('by the server')
    }
  }

  /** An error of the extended protocol: the transaction fails and messages are skipped until Sync. */
  #failExtended(error: ErrorFields): void {
    this.#tx.failed()
    this.#skipToSync = true
    this.#fail(error)
  }

  async #query(text: string): Promise<void> {
    const statements = locateStatements(text)
    if (statements.length === 0) this.#out(serverMessages.emptyQueryResponse())
    for (const s of statements) {
      const ok = await this.#run1(s.text, [], 'simple', undefined, 0, codePoints(text.slice(0, s.start)))
      if (!ok || this.#state === 'ended') break
    }
    if (this.#state === 'ended') return
    this.#tx.endImplicit()
    this.#ready()
  }

  #parse(name: string, text: string, parameterTypes: readonly number[]): void {
    if (this.#refusedInFailedBlock(text)) return
    if (name !== '' && this.#statements.has(name)) {
      this.#failExtended({ code: '42P05', message: `prepared statement "${name}" already exists` })
      return
    }
    this.#statements.set(name, { text, parameterTypes })
    this.#out(serverMessages.parseComplete())
  }

  #bind(portal: string, name: string, params: readonly BoundValue[], resultFormats: readonly number[]): void {
    const statement = this.#statements.get(name)
    if (statement === undefined) {
      this.#failExtended(missingStatement(name))
      return
    }
    if (this.#refusedInFailedBlock(statement.text)) return
    if (resultFormats.some((f) => f !== 0)) {
      this.#failExtended({ code: '0A000', message: 'the scripted server answers in text format only' })
      return
    }
    if (portal !== '' && this.#portals.has(portal)) {
      this.#failExtended({ code: '42P03', message: `cursor "${portal}" already exists` })
      return
    }
    this.#portals.set(portal, { text: statement.text, params, sent: 0 })
    this.#out(serverMessages.bindComplete())
  }

  async #describe(target: 'S' | 'P', name: string): Promise<void> {
    if (target === 'S') {
      const statement = this.#statements.get(name)
      if (statement === undefined) return this.#failExtended(missingStatement(name))
      if (this.#refusedInFailedBlock(statement.text)) return
      const count = Math.max(statement.parameterTypes.length, highestParameter(statement.text))
      const types = Array.from({ length: count }, (_, i) => statement.parameterTypes[i] || 25)
      this.#out(serverMessages.parameterDescription(types))
      const answer = await this.#answerFor(this.#statement(statement.text, [], 'extended', undefined, true))
      this.#describeRows(answer)
      return
    }
    const portal = this.#portals.get(name)
    if (portal === undefined)
      return this.#failExtended({ code: '34000', message: `portal "${name}" does not exist` })
    if (this.#refusedInFailedBlock(portal.text)) return
    portal.answer ??= await this.#answerFor(
      this.#statement(portal.text, portal.params, 'extended', undefined, false),
    )
    this.#describeRows(portal.answer)
  }

  #describeRows(answer: Answer | undefined): void {
    const resolved = answer === undefined ? undefined : resolveAnswer(answer)
    this.#out(
      resolved?.kind === 'rows' ? serverMessages.rowDescription(resolved.columns) : serverMessages.noData(),
    )
  }

  async #execute(name: string, maxRows: number): Promise<void> {
    const portal = this.#portals.get(name)
    if (portal === undefined) {
      this.#failExtended({ code: '34000', message: `portal "${name}" does not exist` })
      return
    }
    if (portal.remaining !== undefined) {
      this.#sendRows(portal, portal.remaining, maxRows, false)
      return
    }
    const ok = await this.#run1(portal.text, portal.params, 'extended', portal, maxRows)
    if (!ok && this.#state !== 'ended') this.#skipToSync = true
  }

  /** In a failed block, a statement other than COMMIT or ROLLBACK is refused (25P02). */
  #refusedInFailedBlock(text: string): boolean {
    if (this.#tx.status !== 'E' || exitsBlock(text)) return false
    this.#failExtended(IN_FAILED_TRANSACTION)
    return true
  }

  #statement(
    text: string,
    params: readonly BoundValue[],
    protocol: 'simple' | 'extended',
    copyData: Buffer | undefined,
    describing: boolean,
  ): ScriptedStatement {
    return {
      text,
      normalized: normalizeSql(text),
      params,
      protocol,
      connection: this.record.id,
      processId: this.record.processId,
      status: this.#tx.status,
      copyData,
      describing,
    }
  }

  /**
   * The script's answer to `statement`, else the defaults'; undefined when none answers. A handler
   * that throws is answered with an ErrorResponse (XX000) and listed in the log's `failures`.
   */
  async #answerFor(statement: ScriptedStatement): Promise<Answer | undefined> {
    for (const list of this.#context.handlers) {
      const handler = list.find(statement)
      if (handler === undefined) continue
      try {
        return await answerOf(handler, statement)
      } catch (e) {
        this.#context.log.addFailure(e)
        return { error: { code: 'XX000', message: `scripted server: the handler threw: ${String(e)}` } }
      }
    }
    return undefined
  }

  /**
   * Runs one statement (of a Query, or a portal's) and writes its answer: transaction control, COPY
   * FROM STDIN, the script's answer. False when it failed (the rest of the message is skipped).
   */
  async #run1(
    text: string,
    params: readonly BoundValue[],
    protocol: 'simple' | 'extended',
    portal: Portal | undefined,
    maxRows: number,
    offset = 0,
  ): Promise<boolean> {
    const normalized = normalizeSql(text)
    const kind = statementKind(normalized)
    const log = (result: string) =>
      this.#context.log.addExecuted({ connection: this.record.id, text, params, protocol, result })
    if (this.#tx.status === 'E' && !exitsBlock(text)) {
      log(`ERROR ${IN_FAILED_TRANSACTION.code}`)
      this.#fail(IN_FAILED_TRANSACTION)
      return false
    }
    if (kind === 'other') this.#tx.run(text)
    let copyData: Buffer | undefined
    if (portal?.answer === undefined && COPY_FROM_STDIN.test(normalized)) {
      const copied = await this.#copyIn(normalized)
      if (copied === undefined) return false
      if ('error' in copied) {
        log(`ERROR ${copied.error.code}`)
        this.#tx.failed()
        this.#fail(copied.error)
        return false
      }
      copyData = copied.data
    }
    const statement = this.#statement(text, params, protocol, copyData, false)
    const scripted = portal?.answer ?? (await this.#answerFor(statement))
    const answer = scripted ?? controlAnswer(kind, this.#tx.status) ?? copyAnswer(copyData)
    if (answer === undefined) {
      this.#context.log.addUnanswered(text)
      return this.#refuse(
        { code: 'XX000', message: `scripted server: no handler answers "${normalized.slice(0, 200)}"` },
        kind,
        log,
      )
    }
    const resolved = resolveAnswer(answer)
    if (resolved.kind === 'error') {
      const { position } = resolved.error
      // PostgreSQL counts an error's position in the whole text of the Query message.
      const error =
        position === undefined ? resolved.error : { ...resolved.error, position: position + offset }
      return this.#refuse(error, kind, log)
    }
    this.#control(kind, resolved.kind === 'tag' ? resolved.tag : '')
    log(resolved.tag)
    if (portal !== undefined) {
      this.#sendRows(portal, resolved, maxRows, true)
      return true
    }
    if (resolved.kind === 'rows') {
      this.#out(serverMessages.rowDescription(resolved.columns))
      for (const row of resolved.rows) this.#out(serverMessages.dataRow(row))
    }
    this.#out(serverMessages.commandComplete(resolved.tag))
    return true
  }

  /** A statement's error: a failed COMMIT ends its transaction, any other fails it. */
  #refuse(error: ErrorFields, kind: ReturnType<typeof statementKind>, log: (result: string) => void): false {
    log(`ERROR ${error.code}`)
    if (kind === 'commit') this.#tx.rollback()
    else this.#tx.failed()
    this.#fail(error)
    return false
  }

  /** Transaction control's effect, with the warnings PostgreSQL gives; `tag`: what the statement answered. */
  #control(kind: ReturnType<typeof statementKind>, tag: string): void {
    const warn = (code: string, message: string) =>
      this.#out(serverMessages.noticeResponse(errorFieldCodes({ code, message }, 'WARNING')))
    if (kind === 'begin') {
      if (!this.#tx.begin()) warn('25001', 'there is already a transaction in progress')
    } else if (kind === 'commit') {
      const open = tag === 'ROLLBACK' ? this.#tx.rollback() : this.#tx.commit().open
      if (!open) warn('25P01', 'there is no transaction in progress')
    } else if (kind === 'rollback') {
      if (!this.#tx.rollback()) warn('25P01', 'there is no transaction in progress')
    } else if (kind === 'rollback-to') {
      this.#tx.recovered()
    }
  }

  /** An Execute's rows, up to `maxRows` (0: all), then CommandComplete or PortalSuspended. */
  #sendRows(portal: Portal, resolved: ResolvedAnswer, maxRows: number, first: boolean): void {
    if (resolved.kind !== 'rows') {
      this.#out(
        resolved.kind === 'tag' ? serverMessages.commandComplete(resolved.tag) : serverMessages.noData(),
      )
      return
    }
    if (first) portal.sent = 0
    const rows = resolved.rows.slice(portal.sent, maxRows > 0 ? portal.sent + maxRows : undefined)
    for (const row of rows) this.#out(serverMessages.dataRow(row))
    portal.sent += rows.length
    if (portal.sent < resolved.rows.length) {
      portal.remaining = resolved
      this.#out(serverMessages.portalSuspended())
      return
    }
    portal.remaining = undefined
    this.#out(serverMessages.commandComplete(resolved.tag))
  }

  /**
   * COPY FROM STDIN: CopyInResponse, written at once, then the data until CopyDone (an error at
   * CopyFail or at another message; Flush and Sync are ignored meanwhile). Undefined when the
   * connection ended first.
   */
  async #copyIn(normalized: string): Promise<{ data: Buffer } | { error: ErrorFields } | undefined> {
    const list = /^copy\s+\S+\s*\(([^)]*)\)/i.exec(normalized)?.[1]
    this.#out(serverMessages.copyInResponse(list === undefined ? 0 : list.split(',').length))
    this.#flush()
    const chunks: Buffer[] = []
    for (;;) {
      const taken = await this.#take()
      if (taken === undefined) return undefined
      const m = taken.received.message
      await this.#settle(taken)
      if (this.#state === 'ended') return undefined
      if (m.type === 'CopyData') chunks.push(m.data)
      else if (m.type === 'CopyDone') return { data: Buffer.concat(chunks) }
      else if (m.type === 'CopyFail')
        return { error: { code: '57014', message: `COPY from stdin failed: ${m.message}` } }
      else if (m.type !== 'Flush' && m.type !== 'Sync')
        return {
          error: {
            code: '08P01',
            message: `unexpected message type 0x${m.type === 'Unknown' ? '??' : m.type} during COPY from stdin`,
          },
        }
    }
  }
}

/** Whether a statement ends a block (allowed in a failed one): COMMIT, ROLLBACK, ROLLBACK TO. */
function exitsBlock(text: string): boolean {
  const kind = statementKind(normalizeSql(text))
  return kind === 'commit' || kind === 'rollback' || kind === 'rollback-to'
}

/** PostgreSQL's own answer to transaction control no handler answered. */
function controlAnswer(kind: ReturnType<typeof statementKind>, status: 'I' | 'T' | 'E'): Answer | undefined {
  if (kind === 'begin') return { tag: 'BEGIN' }
  if (kind === 'commit') return { tag: status === 'E' ? 'ROLLBACK' : 'COMMIT' }
  if (kind === 'rollback' || kind === 'rollback-to') return { tag: 'ROLLBACK' }
  if (status === 'I' && (kind === 'savepoint' || kind === 'release'))
    return {
      error: { code: '25P01', message: `${kind.toUpperCase()} can only be used in transaction blocks` },
    }
  if (kind === 'savepoint') return { tag: 'SAVEPOINT' }
  if (kind === 'release') return { tag: 'RELEASE' }
  return undefined
}

/** A COPY no handler answered: `COPY <lines of data>`. */
function copyAnswer(data: Buffer | undefined): Answer | undefined {
  if (data === undefined) return undefined
  let lines = 0
  for (const byte of data) if (byte === 10) lines++
  return { tag: `COPY ${lines}` }
}

function missingStatement(name: string): ErrorFields {
  return {
    code: '26000',
    message:
      name === ''
        ? 'unnamed prepared statement does not exist'
        : `prepared statement "${name}" does not exist`,
  }
}

/** The highest `$n` of a statement's text (its parameter count when the Parse gave no types). */
function highestParameter(text: string): number {
  let most = 0
  for (const m of normalizeSql(text).matchAll(/\$(\d+)/g)) most = Math.max(most, Number(m[1]))
  return most
}

function textMatches(match: string | RegExp, text: string): boolean {
  const normalized = normalizeSql(text)
  if (typeof match === 'string') return normalizeSql(match).toLowerCase() === normalized.toLowerCase()
  match.lastIndex = 0
  return match.test(normalized)
}

/** Characters (code points, as PostgreSQL counts positions) of `s`. */
function codePoints(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}
