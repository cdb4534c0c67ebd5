import { type ChildProcess, spawn } from 'node:child_process'
import { Toxiproxy } from 'toxiproxy-node-client'
import { killOnExit, registerCleanup } from '../support/cleanup.ts'
import { dockerEngineAnswers } from '../support/docker.ts'
import { describeError, TestkitUnavailableError } from '../support/errors.ts'
import { freePort } from '../support/free-port.ts'
import { findOrBuildToxiproxyServer, TOXIPROXY_VERSION } from './binary.ts'
import { parseToxiproxyVersion } from './parse-version.ts'
import { proxyHandle } from './proxy-handle.ts'
import type { ProxyHandle, StartedToxiproxy, ToxiproxyProvider, Upstream } from './types.ts'

export interface StartToxiproxyOptions {
  readonly ignoreEnv?: boolean
  readonly skipDocker?: boolean
}

/**
 * Gives a real toxiproxy: `TOXIPROXY_URL` if set; else a toxiproxy container through testcontainers
 * if a Docker engine answers; else a `toxiproxy-server` binary (`TOXIPROXY_SERVER`, PATH, or built
 * once with `go install`) listening on 127.0.0.1 only. Stopped by `stop()` or when the process ends.
 *
 * @example
 * const tp = await startToxiproxy()
 * const db = await tp.proxy('db', { host: '127.0.0.1', port: 5432 })
 * await db.setLatency(2)                 // 2 ms on every answer from the server
 * const sql = postgres(db.rewriteUrl(url))
 */
export async function startToxiproxy(options: StartToxiproxyOptions = {}): Promise<StartedToxiproxy> {
  const tried: string[] = []
  const envUrl = process.env['TOXIPROXY_URL']
  if (envUrl && !options.ignoreEnv) {
    const client = new Toxiproxy(envUrl)
    try {
      const version = await withTimeout(client.getVersion(), 5_000)
      return fromClient(client, envUrl, 'env', version, async () => {})
    } catch (e) {
      throw new TestkitUnavailableError(
        'a toxiproxy server',
        [`TOXIPROXY_URL=${envUrl}: ${describeError(e)}`],
        [
          'fix TOXIPROXY_URL so it reaches a running toxiproxy API',
          'or unset TOXIPROXY_URL to let the test kit start one',
        ],
        e,
      )
    }
  }
  tried.push('TOXIPROXY_URL: not set')

  if (!options.skipDocker) {
    const docker = await dockerEngineAnswers()
    if (docker.ok) {
      try {
        return await startContainer()
      } catch (e) {
        tried.push(`a toxiproxy container through testcontainers: ${describeError(e)}`)
      }
    } else {
      tried.push(`a toxiproxy container through testcontainers: ${docker.reason}`)
    }
  } else {
    tried.push('a toxiproxy container: skipped')
  }

  try {
    const bin = await findOrBuildToxiproxyServer(tried)
    return await startBinary(bin.path)
  } catch (e) {
    if (!(e instanceof Error && e.message === 'no toxiproxy-server binary'))
      tried.push(`toxiproxy-server: ${describeError(e)}`)
  }
  throw new TestkitUnavailableError('a toxiproxy server', tried, [
    'set TOXIPROXY_URL to a running toxiproxy API (e.g. http://127.0.0.1:8474)',
    'or set TOXIPROXY_SERVER to a toxiproxy-server binary, or put one on PATH',
    `or install Go (https://go.dev/dl) so the test kit can run: go install github.com/Shopify/toxiproxy/v2/cmd/server@${TOXIPROXY_VERSION}`,
    'or start a Docker engine so testcontainers can run ghcr.io/shopify/toxiproxy',
  ])
}

async function startBinary(path: string): Promise<StartedToxiproxy> {
  const port = await freePort()
  const child = spawn(path, ['-host', '127.0.0.1', '-port', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // The process exiting without `stop` (an uncaught exception, `process.exit()`): not left running.
  const unwatch = killOnExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const stop = registerCleanup(() => {
    unwatch()
    return killChild(child, exited)
  })
  const apiUrl = `http://127.0.0.1:${port}`
  const client = new Toxiproxy(apiUrl)
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) {
      await stop()
      throw new Error(
        `toxiproxy-server exited with code ${child.exitCode}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
      )
    }
    try {
      const version = await client.getVersion()
      return fromClient(client, apiUrl, 'binary', version, stop)
    } catch (e) {
      if (Date.now() > deadline) {
        await stop()
        throw new Error(`toxiproxy-server did not answer on ${apiUrl} within 15 s: ${describeError(e)}`)
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

async function killChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
  await exited
  clearTimeout(timer)
}

async function startContainer(): Promise<StartedToxiproxy> {
  const { ToxiProxyContainer } = await import('@testcontainers/toxiproxy')
  const container = await new ToxiProxyContainer(
    process.env['PIPEFLUSH_TOXIPROXY_IMAGE'] ?? `ghcr.io/shopify/toxiproxy:${TOXIPROXY_VERSION.slice(1)}`,
  ).start()
  const stop = registerCleanup(async () => {
    await container.stop()
  })
  const apiUrl = `http://${container.getHost()}:${container.getMappedPort(8474)}`
  const client = container.client
  const version = await client.getVersion()
  const base = fromClient(client, apiUrl, 'container', version, stop)
  return {
    ...base,
    // Inside a container the proxies listen on pre-exposed ports; the upstream must be reachable from
    // the container (a host service is reached through host.docker.internal / the gateway).
    async proxy(name: string, upstream: Upstream): Promise<ProxyHandle> {
      await removeIfExists(client, name)
      const created = await container.createProxy({ name, upstream: `${upstream.host}:${upstream.port}` })
      return proxyHandle(client, created.instance, created.host, created.port)
    },
  }
}

function fromClient(
  client: Toxiproxy,
  apiUrl: string,
  provider: ToxiproxyProvider,
  version: string,
  stop: () => Promise<void>,
): StartedToxiproxy {
  return {
    client,
    apiUrl,
    provider,
    version: parseToxiproxyVersion(version),
    async proxy(name, upstream) {
      await removeIfExists(client, name)
      const port = await freePort()
      const proxy = await client.createProxy({
        name,
        listen: `127.0.0.1:${port}`,
        upstream: `${upstream.host}:${upstream.port}`,
      })
      return proxyHandle(client, proxy, '127.0.0.1', port)
    },
    reset: () => client.reset(),
    stop,
  }
}

async function removeIfExists(client: Toxiproxy, name: string): Promise<void> {
  try {
    const existing = await client.get(name)
    await existing.remove()
  } catch {
    // not there
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref(),
    ),
  ])
}
