import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, registerCleanup } from '@pipeflush/testkit'
import { findProgram, waitForPort } from '../local-program.ts'

/** A PgBouncer started for a test, in front of one database. */
export interface StartedPgBouncer {
  readonly version: string
  readonly port: number
  /** URL of `database` through PgBouncer (contains the password). */
  readonly url: string
  /** The last lines PgBouncer logged. */
  log(): string
  stop(): Promise<void>
}

/** The pgbouncer binary: `PGBOUNCER`, else on PATH or in /usr/sbin (Debian), else undefined. */
export function findPgBouncer(): string | undefined {
  return findProgram('pgbouncer', 'PGBOUNCER')
}

/**
 * Starts PgBouncer from `binary` in `poolMode` in front of `database` of the server `adminUrl` points
 * at, listening on a free port of 127.0.0.1, with its configuration, user list and log in a temporary
 * directory, dropping the startup parameters `ignoreStartupParameters` names. As root it runs as the `postgres` system user (PgBouncer refuses to run as root).
 * Stopped after the run (also on Ctrl-C).
 */
export async function startPgBouncer(
  binary: string,
  adminUrl: string,
  database: string,
  poolMode: 'transaction' | 'session' = 'transaction',
  /** PgBouncer's `ignore_startup_parameters`: the parameters it takes from a client and drops (the rest it refuses). */
  ignoreStartupParameters = 'extra_float_digits,options',
): Promise<StartedPgBouncer> {
  const admin = new URL(adminUrl)
  const user = decodeURIComponent(admin.username)
  const password = decodeURIComponent(admin.password)
  const version =
    (spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.match(/PgBouncer (\S+)/) ?? [])[1] ?? '?'
  const dir = await mkdtemp(join(tmpdir(), 'pipeflush-pgbouncer-'))
  const port = await freePort()
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`
  const config = `[databases]
${database} = host=${admin.hostname} port=${admin.port || 5432} dbname=${database}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = ${join(dir, 'userlist.txt')}
pool_mode = ${poolMode}
default_pool_size = 3
max_client_conn = 200
server_reset_query =
ignore_startup_parameters = ${ignoreStartupParameters}
logfile = ${join(dir, 'pgbouncer.log')}
pidfile = ${join(dir, 'pgbouncer.pid')}
`
  await writeFile(join(dir, 'pgbouncer.ini'), config, { mode: 0o600 })
  await writeFile(join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 })
  const args: string[] = []
  if (process.getuid?.() === 0) {
    // PgBouncer refuses to run as root: run it as `postgres` (or `nobody`), owner of its files.
    const runAs = ['postgres', 'nobody'].find((u) => spawnSync('id', ['-u', u]).status === 0)
    if (!runAs) throw new Error('pgbouncer: running as root and no postgres or nobody user to run it as')
    const uid = Number(spawnSync('id', ['-u', runAs], { encoding: 'utf8' }).stdout)
    const gid = Number(spawnSync('id', ['-g', runAs], { encoding: 'utf8' }).stdout)
    await chmod(dir, 0o700)
    for (const f of ['', 'pgbouncer.ini', 'userlist.txt']) await chown(join(dir, f), uid, gid)
    args.push('-u', runAs)
  }
  args.push(join(dir, 'pgbouncer.ini'))
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  const readLog = () => {
    const r = spawnSync('tail', ['-n', '30', join(dir, 'pgbouncer.log')], { encoding: 'utf8' })
    return `${stderr}${r.stdout ?? ''}`.replaceAll(password, '***')
  }
  const stop = registerCleanup(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await new Promise((resolve) => {
        child.once('exit', resolve)
        setTimeout(resolve, 2000)
      })
    }
    await rm(dir, { recursive: true, force: true })
  })
  try {
    await waitForPort(port, child, 10_000)
  } catch (e) {
    const log = readLog()
    await stop()
    throw new Error(`pgbouncer did not start: ${(e as Error).message}\n${log}`)
  }
  const url = new URL(adminUrl)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  url.pathname = `/${database}`
  return { version, port, url: url.toString(), log: readLog, stop }
}
