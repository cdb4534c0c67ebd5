/**
 * Everything the test kit starts registers its stop function here, so it is stopped when the test
 * run or benchmark ends: normally, on an uncaught failure, or on Ctrl-C / SIGTERM.
 */
type Stop = () => Promise<void> | void

const stops = new Set<Stop>()
/** What must not outlive the process, killed at its `exit` (synchronously: nothing else runs then). */
const exitKills = new Set<() => void>()
let installed = false

/**
 * Runs `kill` (synchronously) if the process exits before the returned function is called: an
 * uncaught exception, or `process.exit()`, which no asynchronous stop can wait for (a child process
 * would outlive the process). Returns the function that unregisters it.
 *
 * @example
 * const keep = killOnExit(() => child.kill('SIGQUIT'))
 * await stopGracefully(child)
 * keep()
 */
export function killOnExit(kill: () => void): () => void {
  install()
  exitKills.add(kill)
  return () => {
    exitKills.delete(kill)
  }
}

/** Registers `stop` and returns a function that runs it once and unregisters it. */
export function registerCleanup(stop: Stop): () => Promise<void> {
  install()
  let done: Promise<void> | undefined
  const once = async () => {
    stops.delete(once)
    done ??= Promise.resolve().then(stop)
    await done
  }
  stops.add(once)
  return once
}

/** Stops everything still registered, newest first. */
export async function cleanupAll(): Promise<void> {
  const all = [...stops].reverse()
  for (const stop of all) {
    try {
      await stop()
    } catch (e) {
      console.error('pipeflush testkit: cleanup failed:', e)
    }
  }
}

function install(): void {
  if (installed) return
  installed = true
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      void cleanupAll().finally(() => process.kill(process.pid, signal))
    })
  }
  process.once('beforeExit', () => {
    void cleanupAll()
  })
  process.once('exit', () => {
    for (const kill of exitKills) {
      try {
        kill()
      } catch {
        // best effort: the process is going
      }
    }
  })
}
