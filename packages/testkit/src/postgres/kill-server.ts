import type { ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/**
 * Kills a PostgreSQL server at once, as a host failure would: the postmaster and every process it
 * started (backends, WAL sender and writer...), with SIGKILL. Each child of the postmaster makes
 * itself a process group of its own, so a signal to the postmaster's group would miss them, and
 * killing the postmaster alone leaves each backend running (and committing what it is sent) until it
 * notices, which a busy one does only when its statement waits. The postmaster is stopped first
 * (SIGSTOP: it starts no child meanwhile), its children listed from `/proc` and killed, then it.
 * Where `/proc` cannot be read, the postmaster alone is killed. Resolves once every process killed
 * has ended (a process ends a moment after its SIGKILL, a busy one on another core last), within 5 s.
 */
export async function killServer(server: ChildProcess): Promise<void> {
  const pid = server.pid
  if (pid !== undefined) signal(pid, 'SIGSTOP')
  const children = pid === undefined ? [] : childrenOf(pid)
  for (const child of children) signal(child, 'SIGKILL')
  server.kill('SIGKILL')
  const until = performance.now() + 5000
  while (children.some(runs) && performance.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 5))
}

/** Whether process `pid` runs: it exists and is not a zombie (ended, not yet reaped). */
function runs(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** Sends `name` to `pid`, if it still runs. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // Gone already.
  }
}

/** The processes whose parent is `parent`, from `/proc` (empty where it cannot be read). */
export function childrenOf(parent: number): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const out: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === parent) out.push(Number(entry))
    } catch {
      // Ended meanwhile.
    }
  }
  return out
}
