import type { ToxicType, Toxiproxy, Proxy as ToxiproxyProxy } from 'toxiproxy-node-client'
import type { ProxyHandle, ToxicOptions } from './types.ts'

/** Wraps a toxiproxy proxy in the helpers of {@link ProxyHandle}. */
export function proxyHandle(
  client: Toxiproxy,
  proxy: ToxiproxyProxy,
  host: string,
  port: number,
): ProxyHandle {
  const api = client.getApi()
  const base = `${proxy.getPath()}/toxics`
  const toxicName = (type: string, o?: Pick<ToxicOptions, 'stream' | 'name'>) =>
    o?.name ?? `${type}_${o?.stream ?? 'downstream'}`

  const removeToxic = async (name: string) => {
    try {
      await api.delete(`${base}/${encodeURIComponent(name)}`)
    } catch (e) {
      if (!String(e).includes('404') && !/not found/i.test(String(e))) throw e
    }
  }
  const addToxic = async (
    type: ToxicType,
    attributes: Readonly<Record<string, number>>,
    o?: ToxicOptions,
  ) => {
    const name = toxicName(type, o)
    await removeToxic(name)
    await proxy.addToxic({
      name,
      type,
      stream: o?.stream ?? 'downstream',
      toxicity: o?.toxicity ?? 1,
      attributes,
    })
    return name
  }

  return {
    name: proxy.name,
    host,
    port,
    proxy,
    async setLatency(ms, o) {
      if (!Number.isFinite(ms) || ms < 0)
        throw new RangeError(`latency must be a number of milliseconds >= 0, got ${ms}`)
      if (ms === 0) return removeToxic(toxicName('latency', o))
      await addToxic('latency', { latency: ms, jitter: o?.jitter ?? 0 }, o)
    },
    clearLatency: (o) => removeToxic(toxicName('latency', o)),
    addToxic,
    removeToxic,
    async clearToxics() {
      const { data } = await api.get<{ name: string }[]>(base)
      for (const t of data) await removeToxic(t.name)
    },
    rewriteUrl(url) {
      const u = new URL(url)
      u.hostname = host
      u.port = String(port)
      return u.toString()
    },
    remove: () => proxy.remove(),
  }
}
