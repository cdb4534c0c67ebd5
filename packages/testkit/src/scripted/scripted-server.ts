import { randomInt } from 'node:crypto'
import { createServer, type Socket } from 'node:net'
import { registerCleanup } from '../support/cleanup.ts'
import { ConnectionRecord, type ScriptedLog, ServerLog } from './connection-log.ts'
import { defaultHandlers, FLUSH_LOG_INSERT } from './default-answers.ts'
import { ArmedFault, type ScriptedFault } from './faults.ts'
import { HandlerList, type ScriptedHandler } from './handlers.ts'
import { PeerConnection } from './peer-connection.ts'
import { connectionParameters, POSTGRES_18_PARAMETERS } from './server-parameters.ts'
import { normalizeSql } from './split-statements.ts'

/** What the scripted server answers, and the faults it injects from the start. */
export interface ScriptedServerOptions {
  /** Answers to statements, the first that matches answering (see `ScriptedHandler`). */
  readonly handlers?: readonly ScriptedHandler[]
  /** Faults armed from the start (see `ScriptedFault`). */
  readonly faults?: readonly ScriptedFault[]
  /**
   * Answer what drivers and pipeflush send by themselves when no handler does (see
   * `defaultHandlers`): default true. Transaction control is answered either way.
   */
  readonly defaults?: boolean
  /** Parameters reported at startup over PostgreSQL 18's (`server_version`, `TimeZone`...). */
  readonly parameters?: Readonly<Record<string, string>>
}

/**
 * A PostgreSQL server played from a script, on 127.0.0.1 (a free port): real clients connect to it.
 *
 * @example
 * const server = await startScriptedServer({ handlers: [{ match: /^insert/, answer: { tag: 'INSERT 0 1' } }] })
 * const sql = postgres(server.url)
 * await sql`select 1` // answered by the defaults: [{ '?column?': 1 }]
 * await server.close()
 */
export interface ScriptedServer {
  /** `postgres://scripted@127.0.0.1:<port>/scripted` (no password: the server asks for none). */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly log: ScriptedLog
  /** Adds handlers, asked before those given earlier. */
  handle(...handlers: ScriptedHandler[]): void
  /** Arms a fault; messages and bytes count from now on each open connection (see `FaultTrigger`). */
  arm(fault: ScriptedFault): void
  /** Disarms every fault. */
  disarm(): void
  /** Ends every open connection with a FIN (the server keeps listening). */
  dropConnections(): void
  /** Stops listening and ends every connection. */
  close(): Promise<void>
}

/**
 * Starts a scripted PostgreSQL peer (see {@link ScriptedServer}). It speaks the protocol 3.0 as
 * PostgreSQL 18 does: it refuses SSL (`N`), asks for no password, reports PostgreSQL's parameters,
 * gives each connection its own process id, answers simple and extended queries (named and unnamed
 * statements, a Sync per pipeline, skipping to Sync after an error), COPY FROM STDIN, and reports the
 * transaction status; each statement is answered by the first handler that matches, else by the
 * defaults, else with an ErrorResponse (XX000) logged in `log.unanswered`.
 *
 * @example
 * const server = await startScriptedServer()
 * server.handle({ match: /^select .* from "public"\."author"/, answer: { rows: [{ c0: '1', c1: 'Ada' }] } })
 * server.arm({ at: 'commit', action: 'close' }) // the next COMMIT runs; its answer never leaves
 */
export async function startScriptedServer(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const log = new ServerLog()
  const script = new HandlerList(options.handlers)
  const added = new HandlerList()
  const peers = new Set<PeerConnection>()
  const sequences = new Map<string, number>()
  const flushLog = new Map<string, boolean>()
  const settingsOf = new Map<number, Readonly<Record<string, string>>>()
  const handlers = [added, script]
  if (options.defaults !== false) {
    handlers.push(
      new HandlerList(defaultHandlers({ sequences, flushLog, settings: (id) => settingsOf.get(id) ?? {} })),
    )
  }
  log.onCommit((t) => {
    for (const text of t.statements) {
      const id = FLUSH_LOG_INSERT.exec(normalizeSql(text))?.[2]
      if (id !== undefined) flushLog.set(id, true)
    }
  })
  let faults: ArmedFault[] = []
  const arm = (fault: ScriptedFault) => {
    faults.push(
      new ArmedFault(
        fault,
        [...peers].map((p) => p.position),
      ),
    )
  }
  for (const f of options.faults ?? []) arm(f)
  const base = { ...POSTGRES_18_PARAMETERS, ...options.parameters }
  let connections = 0

  const server = createServer((socket: Socket) => {
    const id = ++connections
    const record = new ConnectionRecord(id, 40_000 + id, randomInt(1, 2 ** 31))
    log.addConnection(record)
    socket.unref()
    const peer = new PeerConnection(socket, record, {
      log,
      handlers,
      faults: () => faults,
      parameters: (startup) => {
        const p = connectionParameters(base, startup)
        settingsOf.set(id, p.settings)
        return p
      },
    })
    peers.add(peer)
    void peer.done.then(() => peers.delete(peer))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  server.unref()
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const close = registerCleanup(async () => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
    for (const p of peers) p.destroy()
    await Promise.all([...peers].map((p) => p.done))
    await stopped
  })
  return {
    url: `postgres://scripted@127.0.0.1:${port}/scripted`,
    host: '127.0.0.1',
    port,
    log,
    handle: (...more) => {
      for (const h of [...more].reverse()) added.addFirst(h)
    },
    arm,
    disarm: () => {
      faults = []
    },
    dropConnections: () => {
      for (const p of peers) p.end()
    },
    close,
  }
}
