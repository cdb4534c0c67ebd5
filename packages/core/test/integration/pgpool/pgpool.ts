import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, registerCleanup, type StartedCluster } from '@pipeflush/testkit'
import { findProgram, waitForPort } from '../local-program.ts'

/** A Pgpool-II started for a test, in front of a primary and its standby. */
export interface StartedPgpool {
  readonly version: string
  readonly port: number
  /** URL of the `postgres` database through Pgpool-II (contains the password). */
  readonly url: string
  /** The last lines Pgpool-II logged. */
  log(): string
  stop(): Promise<void>
}

/** The pgpool binary: `PGPOOL`, else on PATH or in /usr/sbin (Debian's `pgpool2`), else undefined. */
export function findPgpool(): string | undefined {
  return findProgram('pgpool', 'PGPOOL')
}

/**
 * Starts Pgpool-II from `binary` in streaming-replication mode with load balancing in front of the
 * cluster's primary (backend 0) and standby (backend 1), on a free port of 127.0.0.1 (its PCP port
 * too, its unix sockets in a temporary directory). No health checks, watchdog or failover: Pgpool
 * finds the primary at start (`sr_check_user`), routes writes and transactions that wrote to it, and
 * balances other reads over both (`delay_threshold` leaves out a standby that lags). Stopped after the
 * run (also on Ctrl-C).
 */
export async function startPgpool(
  binary: string,
  cluster: StartedCluster,
  settings: Readonly<Record<string, string>> = {},
): Promise<StartedPgpool> {
  const admin = new URL(cluster.primary.url)
  const user = decodeURIComponent(admin.username)
  const password = decodeURIComponent(admin.password)
  const version =
    (spawnSync(binary, ['--version'], { encoding: 'utf8' }).stderr.match(/version (\S+)/) ??
      spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.match(/version (\S+)/) ??
      [])[1] ?? '?'
  const dir = await mkdtemp(join(tmpdir(), 'pipeflush-pgpool-'))
  const port = await freePort()
  const pcpPort = await freePort()
  const quote = (s: string) => `'${s.replace(/'/g, "''")}'`
  const all: Record<string, string> = {
    backend_clustering_mode: quote('streaming_replication'),
    listen_addresses: quote('127.0.0.1'),
    port: String(port),
    unix_socket_directories: quote(dir),
    pcp_listen_addresses: quote('127.0.0.1'),
    pcp_port: String(pcpPort),
    pcp_socket_dir: quote(dir),
    backend_hostname0: quote(cluster.primary.host),
    backend_port0: String(cluster.primary.port),
    backend_weight0: '1',
    backend_flag0: quote('DISALLOW_TO_FAILOVER'),
    backend_hostname1: quote(cluster.standby.host),
    backend_port1: String(cluster.standby.port),
    backend_weight1: '1',
    backend_flag1: quote('DISALLOW_TO_FAILOVER'),
    enable_pool_hba: 'off',
    pool_passwd: quote(join(dir, 'pool_passwd')),
    num_init_children: '16',
    max_pool: '2',
    load_balance_mode: 'on',
    sr_check_period: '1',
    sr_check_user: quote(user),
    sr_check_password: quote(password),
    health_check_period: '0',
    failover_on_backend_error: 'off',
    use_watchdog: 'off',
    logdir: quote(dir),
    pid_file_name: quote(join(dir, 'pgpool.pid')),
    log_destination: quote('stderr'),
    ...settings,
  }
  const config = Object.entries(all)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n')
  await writeFile(join(dir, 'pgpool.conf'), `${config}\n`, { mode: 0o600 })
  await writeFile(join(dir, 'pool_passwd'), `${user}:TEXT${password}\n`, { mode: 0o600 })
  await writeFile(join(dir, 'pcp.conf'), '', { mode: 0o600 })
  await writeFile(join(dir, 'pool_hba.conf'), '', { mode: 0o600 }) // unread: enable_pool_hba is off
  const child: ChildProcess = spawn(
    binary,
    ['-n', '-f', join(dir, 'pgpool.conf'), '-F', join(dir, 'pcp.conf'), '-a', join(dir, 'pool_hba.conf')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-8000)
  })
  const readLog = () => stderr.replaceAll(password, '***')
  const stop = registerCleanup(async () => {
    if (child.exitCode === null) {
      child.kill('SIGINT') // fast shutdown
      await new Promise((resolve) => {
        child.once('exit', resolve)
        setTimeout(resolve, 3000)
      })
      if (child.exitCode === null) child.kill('SIGKILL')
    }
    await rm(dir, { recursive: true, force: true })
  })
  try {
    await waitForPort(port, child, 15_000)
  } catch (e) {
    const log = readLog()
    await stop()
    throw new Error(`pgpool did not start: ${(e as Error).message}\n${log}`)
  }
  const url = new URL(cluster.primary.url)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  return { version, port, url: url.toString(), log: readLog, stop }
}
