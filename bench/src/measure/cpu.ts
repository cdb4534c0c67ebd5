import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/**
 * Client CPU time of this process so far, user + system, in milliseconds (`process.cpuUsage`).
 *
 * @example
 * const before = clientCpuMs()
 * await flush()
 * const spent = clientCpuMs() - before
 */
export function clientCpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * Whether server CPU may be read: only when the benchmark started PostgreSQL itself on this machine
 * (a container's or a remote server's process ids name other processes here). Set once by the CLI.
 */
export const serverCpu = { enabled: false }

let ticksPerSecond: number | undefined

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** utime + stime of process `pid` in ms, or undefined when /proc cannot tell (or it is not postgres). */
function readProcessCpuMs(pid: number): number | undefined {
  try {
    if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) return undefined
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name in parentheses: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? (ticks * 1000) / clockTicks() : undefined
  } catch {
    return undefined
  }
}

/** Reads the CPU time of one server backend. */
export interface BackendCpu {
  /** The backend's user + system CPU so far, ms (10 ms resolution on most kernels). */
  read(): number
}

/**
 * The CPU clock of the backend serving `query`'s connection (`pg_backend_pid()`, read from
 * /proc/<pid>/stat), or undefined when server CPU cannot be read here (skipped quietly).
 *
 * @example
 * const cpu = await backendCpu(client.query)
 * const before = cpu?.read()
 */
export async function backendCpu(
  query: (text: string) => Promise<readonly Record<string, unknown>[]>,
): Promise<BackendCpu | undefined> {
  if (!serverCpu.enabled) return undefined
  const [row] = await query('select pg_backend_pid() as pid')
  const pid = Number(row?.['pid'])
  if (!Number.isInteger(pid) || readProcessCpuMs(pid) === undefined) return undefined
  return { read: () => readProcessCpuMs(pid) ?? Number.NaN }
}
