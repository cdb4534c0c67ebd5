import type { ProxyHandle } from '@pipeflush/testkit'

/** The kinds of fault the chaos makes, each now and then, at random. */
export type FaultKind = 'disable' | 'reset_peer' | 'timeout' | 'limit_data' | 'latency'

export const FAULT_KINDS: readonly FaultKind[] = ['disable', 'reset_peer', 'timeout', 'limit_data', 'latency']

/** A seeded pseudo-random source (mulberry32), so that a run can be replayed from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** What the chaos did. */
export interface ChaosLog {
  readonly faults: Record<FaultKind, number>
  /** Faults whose toxiproxy call failed (the API answered an error): counted, never fatal. */
  readonly apiErrors: number
}

/** A running chaos: `stop()` ends it and heals the proxy (every toxic removed, the proxy enabled). */
export interface Chaos {
  stop(): Promise<ChaosLog>
}

/**
 * Faults on `proxy`, one every 150-650 ms at random, each undone after a while of its own (they may
 * overlap): the proxy disabled for 0.1-0.5 s (every connection through it closed, new ones refused),
 * a `reset_peer` (connections reset, TCP RST) for 20-200 ms, a `timeout` toxic (data stops, the
 * connection hangs) held 0.2-2.7 s, a `limit_data` (the connection closed after 0-3,000 more bytes)
 * for 0.1-0.6 s, 50-100 ms of latency for 0.3-1.5 s. Upstream or downstream, at random.
 *
 * @example
 * const chaos = startChaos(proxy, seeded(42))
 * // ... the workload runs ...
 * const log = await chaos.stop()
 */
export function startChaos(proxy: ProxyHandle, random: () => number): Chaos {
  const faults: Record<FaultKind, number> = {
    disable: 0,
    reset_peer: 0,
    timeout: 0,
    limit_data: 0,
    latency: 0,
  }
  let apiErrors = 0
  let stopped = false
  let serial = 0
  const running = new Set<Promise<void>>()
  const between = (lo: number, hi: number) => lo + random() * (hi - lo)
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  const stream = () => (random() < 0.5 ? 'upstream' : 'downstream') as 'upstream' | 'downstream'
  const enabled = (on: boolean) =>
    proxy.proxy.update({ enabled: on, listen: proxy.proxy.listen, upstream: proxy.proxy.upstream })

  /** One fault: made, held, undone. */
  const fault = async (kind: FaultKind): Promise<void> => {
    faults[kind]++
    const name = `${kind}_${++serial}`
    try {
      switch (kind) {
        case 'disable':
          await enabled(false)
          await sleep(between(100, 500))
          await enabled(true)
          return
        case 'reset_peer':
          await proxy.addToxic('reset_peer', { timeout: 0 }, { stream: stream(), name })
          await sleep(between(20, 200))
          break
        case 'timeout':
          await proxy.addToxic('timeout', { timeout: 0 }, { stream: stream(), name })
          await sleep(between(200, 2700))
          break
        case 'limit_data':
          await proxy.addToxic(
            'limit_data',
            { bytes: Math.floor(between(0, 3000)) },
            { stream: stream(), name },
          )
          await sleep(between(100, 600))
          break
        case 'latency':
          await proxy.addToxic('latency', { latency: Math.floor(between(50, 100)), jitter: 0 }, { name })
          await sleep(between(300, 1500))
          break
      }
      await proxy.removeToxic(name)
    } catch {
      apiErrors++
    }
  }

  const loop = (async () => {
    while (!stopped) {
      await sleep(between(150, 650))
      if (stopped) break
      const kind = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)]!
      const p = fault(kind).finally(() => running.delete(p))
      running.add(p)
    }
  })()

  return {
    async stop() {
      stopped = true
      await loop
      await Promise.all(running)
      await proxy.clearToxics().catch(() => {})
      await enabled(true).catch(() => {})
      return { faults: { ...faults }, apiErrors }
    },
  }
}
