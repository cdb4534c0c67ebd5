/**
 * Which statement texts are prepared on which postgres.js connection. postgres.js keeps its own cache
 * per connection but does not expose it; pipeflush learns the connection object from a query's
 * `onexecute` hook and records what it prepared there. Keyed weakly, so closed connections go away.
 */
const byConnection = new WeakMap<object, Set<string>>()

export function isWarm(connection: object | undefined, sqlText: string): boolean {
  return connection !== undefined && (byConnection.get(connection)?.has(sqlText) ?? false)
}

export function markWarm(connection: object | undefined, sqlTexts: Iterable<string>): void {
  if (connection === undefined) return
  let set = byConnection.get(connection)
  if (!set) {
    set = new Set()
    byConnection.set(connection, set)
  }
  for (const t of sqlTexts) set.add(t)
}

/** Forget a connection (it failed: postgres.js drops its prepared statements when it reconnects). */
export function forgetConnection(connection: object | undefined): void {
  if (connection !== undefined) byConnection.delete(connection)
}
