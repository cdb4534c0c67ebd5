import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { delimiter, join } from 'node:path'

/**
 * A program the tests start (pgbouncer, pgpool): the path in `env` if set, else on PATH or in the
 * sbin folders Debian's packages install to, else undefined.
 */
export function findProgram(name: string, env: string): string | undefined {
  if (process.env[env]) return process.env[env]
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/bin']
  return dirs.map((d) => join(d, name)).find((p) => existsSync(p))
}

/** Waits until `port` of 127.0.0.1 accepts connections; fails if `child` exits or `limitMs` passes. */
export async function waitForPort(port: number, child: ChildProcess, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`)
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1')
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`port ${port} not open after ${limitMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
