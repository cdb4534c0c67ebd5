import { createServer, type Server, Socket } from 'node:net'

/** Which way the bytes flow: `upstream` from the client to the server, `downstream` back. */
export type Direction = 'upstream' | 'downstream'

/**
 * What happens at the cut: `close` ends both sides (FIN), `reset` resets both (RST), `stall` stops
 * forwarding that direction (the bytes past the offset are dropped, the connection stays open).
 */
export type CutAction = 'close' | 'reset' | 'stall'

/** A cut: after `offset` bytes have passed in `direction` on a connection, `action`. */
export interface Cut {
  readonly direction: Direction
  readonly offset: number
  readonly action: CutAction
  /** Disarm after the first connection is cut (default true), so that reconnecting works. */
  readonly once?: boolean
}

/** A TCP proxy on 127.0.0.1 that cuts connections at an exact byte offset. */
export interface CutProxy {
  readonly host: string
  readonly port: number
  /** Arms `cut`: bytes count from now on open connections, from their start on new ones. */
  arm(cut: Cut): void
  disarm(): void
  /** Connections cut since the proxy started. */
  readonly cuts: number
  /** Starts recording the bytes that pass, per direction (all connections), and counting round trips. */
  record(): void
  /**
   * What passed since `record()`, and the round trips the clients made, counted on the wire whatever
   * it carries (TLS included): each time a client sends after the server sent on its connection since
   * its previous send (a connection's first send counts as one).
   */
  recorded(): Record<Direction, Buffer> & { readonly roundTrips: number }
  /**
   * Sends new connections to `upstream` from now on (open ones keep theirs), as an address that
   * follows the primary does after a failover (a virtual IP, HAProxy with health checks).
   */
  retarget(upstream: { readonly host: string; readonly port: number }): void
  /** Closes the listener and every connection. */
  stop(): Promise<void>
}

interface Link {
  readonly client: Socket
  readonly server: Socket
  /** Bytes passed per direction since the cut was armed (or the link opened). */
  passed: Record<Direction, number>
  stalled: Record<Direction, boolean>
  /** The server sent something since the client's last send (true before its first). */
  answered: boolean
}

/**
 * Starts a proxy to `upstream` that can cut a connection at an exact byte offset, with a FIN, a RST
 * or a stall. toxiproxy's `limit_data` gives the FIN at an offset; its `reset_peer` and `timeout`
 * toxics act on time and arriving data, not at a byte offset (and a reset on a connection opened
 * before the toxic was added is a FIN), so a fault sweep places those with this proxy.
 *
 * @example
 * const cut = await startCutProxy({ host: pg.host, port: pg.port })
 * cut.arm({ direction: 'upstream', offset: 120, action: 'reset' })
 */
export async function startCutProxy(to: { readonly host: string; readonly port: number }): Promise<CutProxy> {
  let upstream = to
  const links = new Set<Link>()
  let armed: Cut | undefined
  let cuts = 0
  let recording: Record<Direction, Buffer[]> = { upstream: [], downstream: [] }
  let roundTrips = 0

  const cutLink = (link: Link, cut: Cut) => {
    cuts++
    if (cut.once ?? true) armed = undefined
    if (cut.action === 'stall') {
      link.stalled[cut.direction] = true
      return
    }
    for (const s of [link.client, link.server]) {
      if (cut.action === 'reset') s.resetAndDestroy()
      else s.end()
    }
  }

  const forward = (link: Link, direction: Direction, from: Socket, to: Socket) => {
    from.on('data', (data: Buffer) => {
      if (link.stalled[direction]) return
      recording[direction].push(data)
      if (direction === 'downstream') link.answered = true
      else if (link.answered) {
        roundTrips++
        link.answered = false
      }
      const cut = armed
      if (cut === undefined || cut.direction !== direction) {
        link.passed[direction] += data.length
        to.write(data)
        return
      }
      const room = cut.offset - link.passed[direction]
      if (room >= data.length) {
        link.passed[direction] += data.length
        to.write(data)
        if (room === data.length) cutLink(link, cut)
        return
      }
      if (room > 0) to.write(data.subarray(0, room))
      link.passed[direction] += Math.max(0, room)
      cutLink(link, cut)
    })
  }

  const server: Server = createServer((client) => {
    const up = new Socket()
    const link: Link = {
      client,
      server: up,
      passed: { upstream: 0, downstream: 0 },
      stalled: { upstream: false, downstream: false },
      answered: true,
    }
    links.add(link)
    client.setNoDelay(true)
    up.setNoDelay(true)
    const end = () => {
      links.delete(link)
      client.destroy()
      up.destroy()
    }
    client.on('error', end)
    up.on('error', end)
    client.on('close', end)
    up.on('close', end)
    client.pause()
    up.connect(upstream.port, upstream.host, () => {
      forward(link, 'upstream', client, up)
      forward(link, 'downstream', up, client)
      client.resume()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('cut proxy: no port')

  return {
    host: '127.0.0.1',
    port: address.port,
    arm(cut) {
      armed = cut
      for (const link of links) link.passed = { upstream: 0, downstream: 0 }
    },
    disarm() {
      armed = undefined
    },
    retarget(next) {
      upstream = next
    },
    get cuts() {
      return cuts
    },
    record() {
      recording = { upstream: [], downstream: [] }
      roundTrips = 0
    },
    recorded: () => ({
      upstream: Buffer.concat(recording.upstream),
      downstream: Buffer.concat(recording.downstream),
      roundTrips,
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const link of links) {
          link.client.destroy()
          link.server.destroy()
        }
        server.close(() => resolve())
      }),
  }
}
