// Run as its own Node process by `unconnected-opening.test.ts`: a listening socket on loopback whose
// process never accepts (its event loop blocked), its queue of 2 connections filled by the test. The
// system then drops every later connection's first packet (SYN), as a host behind a firewall that
// drops packets, or a failover's old address, does: the connecting socket stays pending, for minutes.
// Sends its port, then blocks until killed.
import { createServer } from 'node:net'

const server = createServer(() => {})
server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  const { port } = server.address() as { port: number }
  process.send?.(port, () => {
    // Blocked once the message is out: nothing is accepted from then on.
    setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0), 50)
  })
})
