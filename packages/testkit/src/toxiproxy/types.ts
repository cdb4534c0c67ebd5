import type { ToxicDirection, ToxicType, Toxiproxy, Proxy as ToxiproxyProxy } from 'toxiproxy-node-client'

export type ToxiproxyProvider = 'env' | 'container' | 'binary'

/** Where a proxy forwards to. */
export interface Upstream {
  readonly host: string
  readonly port: number
}

/** Options of any toxic. */
export interface ToxicOptions {
  /** Defaults to `downstream` (server to client), as in the seed benchmark. */
  readonly stream?: ToxicDirection
  /** Probability the toxic applies to a connection, 0..1 (default 1). */
  readonly toxicity?: number
  /** Defaults to `<type>_<stream>`. */
  readonly name?: string
}

/** A named proxy in front of an upstream, with helpers for its toxics. */
export interface ProxyHandle {
  readonly name: string
  /** Where clients connect instead of the upstream (always loopback). */
  readonly host: string
  readonly port: number
  readonly proxy: ToxiproxyProxy
  /** Sets (or replaces) a fixed latency toxic of `ms` milliseconds; 0 clears it. */
  setLatency(ms: number, options?: ToxicOptions & { jitter?: number }): Promise<void>
  clearLatency(options?: Pick<ToxicOptions, 'stream' | 'name'>): Promise<void>
  /** Adds any toxic (bandwidth, timeout, reset_peer, limit_data, slicer, slow_close...). Returns its name. */
  addToxic(
    type: ToxicType,
    attributes: Readonly<Record<string, number>>,
    options?: ToxicOptions,
  ): Promise<string>
  removeToxic(name: string): Promise<void>
  /** Removes every toxic of this proxy. */
  clearToxics(): Promise<void>
  /** Rewrites a connection URL's host and port to go through this proxy. */
  rewriteUrl(url: string): string
  remove(): Promise<void>
}

/** A running toxiproxy server and its client. */
export interface StartedToxiproxy {
  readonly client: Toxiproxy
  /** The HTTP API address, e.g. `http://127.0.0.1:8474`. */
  readonly apiUrl: string
  readonly provider: ToxiproxyProvider
  readonly version: string
  /** Creates (or replaces) proxy `name` in front of `upstream`, listening on a free loopback port. */
  proxy(name: string, upstream: Upstream): Promise<ProxyHandle>
  /** Removes every toxic of every proxy and enables every proxy (toxiproxy's `/reset`). */
  reset(): Promise<void>
  stop(): Promise<void>
}
