import { createConnection, createServer, type Socket } from 'node:net'

/** A TCP proxy of a fault test in front of the test database, on loopback. */
export interface TestProxy {
  /** The database's URL through the proxy. */
  readonly url: string
  /** Destroys every socket it made or took, and closes it. */
  close(): Promise<void>
}

/**
 * Opens the connection to the server for a client's connection, the two tied: an error or a close of
 * either destroys the other. What passes between them is the caller's to wire.
 */
export type Upstream = () => Socket

/**
 * Starts a proxy in front of `databaseUrl` (listening on 127.0.0.1, a port of its own) that hands each
 * client connection to `accept`, with the way to open the connection to the server (see
 * {@link Upstream}); a client's errors are ignored (the driver reports them).
 *
 * @example
 * const proxy = await startTestProxy(db.url, (client, upstream) => {
 *   const server = upstream()
 *   client.pipe(server).pipe(client)
 * })
 * openTrackedClient('pg', proxy.url)
 */
export async function startTestProxy(
  databaseUrl: string,
  accept: (client: Socket, upstream: Upstream) => void,
): Promise<TestProxy> {
  const target = new URL(databaseUrl)
  const sockets: Socket[] = []
  const proxy = createServer((client) => {
    sockets.push(client)
    client.on('error', () => {})
    accept(client, () => {
      const server = createConnection({ host: target.hostname, port: Number(target.port) })
      sockets.push(server)
      server.on('error', () => client.destroy())
      client.on('error', () => server.destroy())
      client.on('close', () => server.destroy())
      server.on('close', () => client.destroy())
      return server
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const proxied = new URL(databaseUrl)
  proxied.hostname = '127.0.0.1'
  proxied.port = String((proxy.address() as { port: number }).port)
  return {
    url: proxied.toString(),
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    },
  }
}
