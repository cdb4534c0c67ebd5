import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { cacheDir } from '../support/repo-root.ts'

export const TOXIPROXY_VERSION = 'v2.12.0'
const GO_PACKAGE = `github.com/Shopify/toxiproxy/v2/cmd/server@${TOXIPROXY_VERSION}`

/** How the binary was found, for messages. */
export interface FoundBinary {
  readonly path: string
  readonly how: string
}

/**
 * Finds a `toxiproxy-server` binary: `TOXIPROXY_SERVER`, else on PATH, else the project's cache
 * (`.cache/toxiproxy/<version>/`), else builds it there with `go install` (about 30 s, once).
 * Throws with what was tried when none can be had.
 */
export async function findOrBuildToxiproxyServer(tried: string[]): Promise<FoundBinary> {
  const fromEnv = process.env['TOXIPROXY_SERVER']
  if (fromEnv) {
    if (existsSync(fromEnv)) return { path: fromEnv, how: `TOXIPROXY_SERVER=${fromEnv}` }
    tried.push(`TOXIPROXY_SERVER=${fromEnv}: no such file`)
  } else {
    tried.push('TOXIPROXY_SERVER: not set')
  }
  const onPath = findOnPath('toxiproxy-server')
  if (onPath) return { path: onPath, how: `toxiproxy-server on PATH (${onPath})` }
  tried.push('toxiproxy-server on PATH: not found')

  const dir = join(cacheDir(), 'toxiproxy', TOXIPROXY_VERSION)
  const cached = join(dir, 'toxiproxy-server')
  if (existsSync(cached)) return { path: cached, how: `cached build (${cached})` }

  const go =
    process.env['GO'] ??
    findOnPath('go') ??
    (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null)
  if (!go) {
    tried.push(`building with go install ${GO_PACKAGE}: Go is not installed`)
    throw new Error('no toxiproxy-server binary')
  }
  await mkdir(dir, { recursive: true })
  const gobin = await mkdtemp(join(dir, 'build-'))
  try {
    const result = await run(go, ['install', GO_PACKAGE], { ...process.env, GOBIN: gobin, CGO_ENABLED: '0' })
    if (result.code !== 0) {
      tried.push(
        `go install ${GO_PACKAGE} (exit ${result.code}): ${result.output.trim().split('\n').slice(-3).join(' | ')}`,
      )
      throw new Error('no toxiproxy-server binary')
    }
    // Renaming is atomic: two runs building at once both end with one complete binary.
    await rename(join(gobin, 'server'), cached)
    return { path: cached, how: `built with go install into ${cached}` }
  } finally {
    await rm(gobin, { recursive: true, force: true })
  }
}

function findOnPath(name: string): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, name)
    if (existsSync(candidate)) return candidate
  }
  return null
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString()
    })
    child.on('error', (e) => resolve({ code: -1, output: e.message }))
    child.on('close', (code) => resolve({ code: code ?? -1, output }))
  })
}

/** `toxiproxy-server -version` output, or '' when it cannot run. */
export function binaryVersion(path: string): string {
  const r = spawnSync(path, ['-version'], { encoding: 'utf8', timeout: 5_000 })
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.trim()
}
