export type { ClientOptions, DriverName, TestClient } from './clients/open-client.ts'
export { openClient, TEST_DRIVERS } from './clients/open-client.ts'
export type { Cut, CutAction, CutProxy, Direction } from './faults/cut-proxy.ts'
export { startCutProxy } from './faults/cut-proxy.ts'
export { type FramedMessage, messageBoundaries, messages } from './faults/message-boundaries.ts'
export { type SilentServer, startSilentServer } from './faults/silent-server.ts'
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
export type {
  Answer,
  CellValue,
  ColumnSpec,
  ErrorAnswer,
  ErrorFields,
  RowsAnswer,
  ScriptedStatement,
  TagAnswer,
} from './scripted/answers.ts'
export type { BoundValue, ClientMessage, ClientMessageType } from './scripted/client-messages.ts'
export type {
  ConnectionLog,
  ExecutedStatement,
  ReceivedMessage,
  ScriptedLog,
  TransactionOutcome,
  TransactionRecord,
} from './scripted/connection-log.ts'
export type { FaultAction, FaultTiming, FaultTrigger, ScriptedFault } from './scripted/faults.ts'
export type { ScriptedHandler, StatementMatch } from './scripted/handlers.ts'
export {
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from './scripted/scripted-server.ts'
export { POSTGRES_18_PARAMETERS } from './scripted/server-parameters.ts'
export { normalizeSql, splitStatements } from './scripted/split-statements.ts'
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
