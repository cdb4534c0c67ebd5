import { spawn, spawnSync } from 'node:child_process'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPostgres, startToxiproxy, TestkitUnavailableError } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterEach, describe, expect, test } from 'vitest'
import { embeddedBinaries, platformPackageDir } from '../../src/postgres/embedded-binaries.ts'
import { dockerEngineAnswers } from '../../src/support/docker.ts'

const db = useTestDatabase()
const savedEnv = { ...process.env }
afterEach(() => {
  process.env = { ...savedEnv }
})

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })

describe('startPostgres', () => {
  test('uses DATABASE_URL when set, and stop() leaves it running', async () => {
    process.env['DATABASE_URL'] = db.url
    const pg = await startPostgres()
    expect(pg.provider).toBe('env')
    expect(pg.url).toBe(db.url)
    await pg.stop()
    expect(await listening(pg.port)).toBe(true)
  })

  test('an unreachable DATABASE_URL is a clear error that hides the password', async () => {
    process.env['DATABASE_URL'] = 'postgres://app:s3cret@127.0.0.1:1/nowhere'
    const error = await startPostgres().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TestkitUnavailableError)
    const message = (error as Error).message
    expect(message).toContain('DATABASE_URL=postgres://app:***@127.0.0.1:1/nowhere')
    expect(message).toContain('unset DATABASE_URL')
    expect(message).not.toContain('s3cret')
  })

  test('without DATABASE_URL or Docker, starts embedded PostgreSQL 18 on loopback and stops it', async () => {
    delete process.env['DATABASE_URL']
    const pg = await startPostgres()
    try {
      expect(pg.provider).toBe('embedded')
      expect(pg.host).toBe('127.0.0.1')
      expect(pg.version).toMatch(/^18\./)
      const sql = postgres(pg.url, { max: 1 })
      const [row] = await sql`select current_setting('listen_addresses') as l`
      await sql.end()
      expect(row?.['l']).toBe('127.0.0.1')
    } finally {
      await pg.stop()
    }
    expect(await listening(pg.port)).toBe(false)
  }, 120_000)
})

describe('Docker', () => {
  test('no Docker engine here: the probe says why, quickly, without a stack trace', async () => {
    const t0 = Date.now()
    const result = await dockerEngineAnswers()
    expect(result.ok).toBe(false)
    expect(result.reason).toMatch(/Docker/)
    expect(result.reason).not.toMatch(/\n\s+at /)
    expect(Date.now() - t0).toBeLessThan(6_000)
  })
})

describe('startToxiproxy', () => {
  test('uses TOXIPROXY_URL when set', async () => {
    process.env['TOXIPROXY_URL'] = db.services.toxiproxyUrl
    const tp = await startToxiproxy()
    expect(tp.provider).toBe('env')
    expect(tp.version).toMatch(/^2\.12/)
  })

  test('starts the toxiproxy-server binary on loopback, proxies with latency, and stops it', async () => {
    delete process.env['TOXIPROXY_URL']
    const tp = await startToxiproxy()
    const port = Number(new URL(tp.apiUrl).port)
    try {
      expect(tp.provider).toBe('binary')
      expect(new URL(tp.apiUrl).hostname).toBe('127.0.0.1')
      const proxy = await tp.proxy('pg', { host: db.services.postgresHost, port: db.services.postgresPort })
      expect(proxy.host).toBe('127.0.0.1')
      await proxy.setLatency(30)
      const sql = postgres(proxy.rewriteUrl(db.url), { max: 1 })
      await sql`select 1`
      const t0 = performance.now()
      await sql`select 1`
      expect(performance.now() - t0).toBeGreaterThanOrEqual(29)
      await proxy.addToxic('bandwidth', { rate: 1000 })
      await proxy.clearToxics()
      const { data } = await tp.client.getApi().get<unknown[]>(`${proxy.proxy.getPath()}/toxics`)
      expect(data).toEqual([])
      await sql.end()
    } finally {
      await tp.stop()
    }
    expect(await listening(port)).toBe(false)
  })

  test('when no toxiproxy can be had, the error lists what was tried and how to fix it', async () => {
    delete process.env['TOXIPROXY_URL']
    process.env['TOXIPROXY_SERVER'] = '/nonexistent/toxiproxy-server'
    process.env['PATH'] = '/nonexistent'
    process.env['GO'] = ''
    process.env['PIPEFLUSH_CACHE_DIR'] = await mkdtemp(join(tmpdir(), 'pf-cache-'))
    const error = await startToxiproxy({ skipDocker: true }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TestkitUnavailableError)
    const message = (error as Error).message
    expect(message).toContain('TOXIPROXY_URL: not set')
    expect(message).toContain('TOXIPROXY_SERVER=/nonexistent/toxiproxy-server: no such file')
    expect(message).toContain('toxiproxy-server on PATH: not found')
    expect(message).toMatch(/install Go|Docker/)
  })
})

describe('cleanup', () => {
  test('Ctrl-C stops everything the test kit started: nothing is left listening', async () => {
    const child = spawn(
      process.execPath,
      ['--conditions=@pipeflush/source', join(import.meta.dirname, '../fixtures/start-and-wait.ts')],
      {
        env: { ...savedEnv, DATABASE_URL: '', TOXIPROXY_URL: '' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const ports = await new Promise<{ pgPort: number; toxiproxyPort: number }>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString()
        const line = out.split('\n').find((l) => l.startsWith('{'))
        if (line) resolve(JSON.parse(line) as { pgPort: number; toxiproxyPort: number })
      })
      child.once('exit', (code) => reject(new Error(`fixture exited early with ${code}`)))
    })
    expect(await listening(ports.pgPort)).toBe(true)
    expect(await listening(ports.toxiproxyPort)).toBe(true)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGINT')
    await exited
    expect(await listening(ports.pgPort)).toBe(false)
    expect(await listening(ports.toxiproxyPort)).toBe(false)
  }, 120_000)

  // Bug (outside probe shapes4): a script that crashed (an uncaught exception, or process.exit())
  // left its embedded PostgreSQL running, and its folder in the temporary directory.
  test.each(['throw', 'exit'])(
    'a process that ends at once (%s) leaves nothing running: its servers are killed as it exits',
    async (end) => {
      const child = spawn(
        process.execPath,
        ['--conditions=@pipeflush/source', join(import.meta.dirname, '../fixtures/start-and-wait.ts'), end],
        { env: { ...savedEnv, DATABASE_URL: '', TOXIPROXY_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let out = ''
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString()
      })
      const code = await new Promise((resolve) => child.once('exit', resolve))
      expect(code).toBe(end === 'exit' ? 3 : 1)
      const line = out.split('\n').find((l) => l.startsWith('{'))
      const ports = JSON.parse(line ?? '{}') as { pgPort: number; toxiproxyPort: number }
      expect(await listening(ports.pgPort)).toBe(false)
      expect(await listening(ports.toxiproxyPort)).toBe(false)
    },
    120_000,
  )
})

describe('embedded binaries as root', () => {
  test.skipIf(process.getuid?.() !== 0)(
    'a checkout under a mode-700 folder (e.g. mktemp -d) still runs: the binaries are copied where the postgres user can reach them',
    async () => {
      const hidden = await mkdtemp(join(tmpdir(), 'pf-700-')) // mkdtemp makes it mode 700, owned by root
      const pkg = join(hidden, 'linux-x64')
      await cp(platformPackageDir(), pkg, { recursive: true, verbatimSymlinks: true })
      const bin = await embeddedBinaries(pkg)
      expect(bin.user?.uid).toBeGreaterThan(0)
      expect(bin.native.startsWith(join(tmpdir(), 'pipeflush-embedded-pg'))).toBe(true)
      const asPostgres = spawnSync(join(bin.native, 'bin', 'initdb'), ['--version'], {
        ...bin.user,
        encoding: 'utf8',
      })
      expect(asPostgres.stdout).toMatch(/initdb \(PostgreSQL\) 18/)
      await rm(hidden, { recursive: true, force: true })
    },
  )
})
