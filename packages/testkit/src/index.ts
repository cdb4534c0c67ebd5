export type { ClientOptions, DriverName, TestClient } from './clients/open-client.ts'
export { openClient, TEST_DRIVERS } from './clients/open-client.ts'
export type { Cut, CutAction, CutProxy, Direction } from './faults/cut-proxy.ts'
export { startCutProxy } from './faults/cut-proxy.ts'
export { type FramedMessage, messageBoundaries, messages } from './faults/message-boundaries.ts'
export { type ClusterServer, type StartedCluster, startCluster } from './postgres/cluster.ts'
export { createDatabase, dropDatabase } from './postgres/databases.ts'
export { startPostgres } from './postgres/start-postgres.ts'
export type { PostgresProvider, StartedPostgres, StartPostgresOptions } from './postgres/types.ts'
export type {
  RoundTripCount,
  RoundTripCounter,
  SocketFactoryOptions,
} from './round-trips/round-trip-counter.ts'
export { createRoundTripCounter } from './round-trips/round-trip-counter.ts'
export { withSocket } from './round-trips/with-socket.ts'
export { cleanupAll, registerCleanup } from './support/cleanup.ts'
export { TestkitUnavailableError } from './support/errors.ts'
export { freePort } from './support/free-port.ts'
export { redactUrl } from './support/redact.ts'
export { repoRoot } from './support/repo-root.ts'
export { connectToxiproxy } from './toxiproxy/connect-toxiproxy.ts'
export type { StartToxiproxyOptions } from './toxiproxy/start-toxiproxy.ts'
export { startToxiproxy } from './toxiproxy/start-toxiproxy.ts'
export type {
  ProxyHandle,
  StartedToxiproxy,
  ToxicOptions,
  ToxiproxyProvider,
  Upstream,
} from './toxiproxy/types.ts'
