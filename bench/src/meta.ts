import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { findPackageJSON } from 'node:module'
import os from 'node:os'

/** The installed version of package `name` as resolved from the bench package, or `unknown`. */
export function packageVersion(name: string): string {
  try {
    const path = findPackageJSON(name, import.meta.url)
    if (!path) return 'unknown'
    return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

/** The machine a run is on: CPU model, core count, memory, OS. */
export function machineInfo(): {
  machine: string
  cpus: number
  cpuModel: string
  memoryGb: number
  os: string
} {
  const cpus = os.cpus()
  const cpuModel = cpus[0]?.model.trim() ?? 'unknown'
  const memoryGb = Math.round((os.totalmem() / 2 ** 30) * 10) / 10
  return {
    machine: `${cpus.length} x ${cpuModel}, ${memoryGb} GB, ${os.platform()} ${os.arch()}`,
    cpus: cpus.length,
    cpuModel,
    memoryGb,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  }
}

/** The commit the run measured (`<sha>` or `<sha>-dirty`), or null outside a git checkout. Read-only. */
export function gitCommit(): string | null {
  try {
    const run = (args: string[]) =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    const sha = run(['rev-parse', '--short', 'HEAD'])
    return run(['status', '--porcelain', '--untracked-files=no']) ? `${sha}-dirty` : sha
  } catch {
    return null
  }
}
