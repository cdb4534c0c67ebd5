import { Toxiproxy } from 'toxiproxy-node-client'
import { freePort } from '../support/free-port.ts'
import { parseToxiproxyVersion } from './parse-version.ts'
import { proxyHandle } from './proxy-handle.ts'
import type { StartedToxiproxy } from './types.ts'

/**
 * A client for a toxiproxy already running at `apiUrl` on this machine (for example the one a
 * vitest global setup started). Proxies listen on free ports of 127.0.0.1. `stop()` does nothing.
 *
 * @example
 * const tp = await connectToxiproxy(inject('pipeflush').toxiproxyUrl)
 */
export async function connectToxiproxy(apiUrl: string): Promise<StartedToxiproxy> {
  const client = new Toxiproxy(apiUrl)
  const version = await client.getVersion()
  return {
    client,
    apiUrl,
    provider: 'env',
    version: parseToxiproxyVersion(version),
    async proxy(name, upstream) {
      try {
        await (await client.get(name)).remove()
      } catch {
        // not there
      }
      const port = await freePort()
      const proxy = await client.createProxy({
        name,
        listen: `127.0.0.1:${port}`,
        upstream: `${upstream.host}:${upstream.port}`,
      })
      return proxyHandle(client, proxy, '127.0.0.1', port)
    },
    reset: () => client.reset(),
    stop: async () => {},
  }
}
