import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type * as Core from '@pipeflush/core'

/** A build of pipeflush's core loaded in this process, and how a report names it. */
export interface CoreBuild {
  readonly name: string
  readonly core: typeof Core
}

/**
 * Two builds of the core in this process: `before`'s `packages/core/src` (a commit, extracted once
 * with `git archive` under `.cache/ab-cpu/<commit>/`, ignored by git) and this tree's, each its own
 * module graph (its own caches), so that one process can run them side by side.
 *
 * @example
 * const [before, after] = await coreBuilds('HEAD~1')
 */
export async function coreBuilds(before: string): Promise<[CoreBuild, CoreBuild]> {
  const root = resolve(import.meta.dirname, '../../..')
  const commit = execFileSync('git', ['rev-parse', '--short', before], { cwd: root }).toString().trim()
  const dir = join(root, '.cache', 'ab-cpu', commit)
  if (!existsSync(join(dir, 'packages/core/src/index.ts'))) {
    mkdirSync(dir, { recursive: true })
    const tar = execFileSync('git', ['archive', commit, 'packages/core/src'], {
      cwd: root,
      maxBuffer: 1 << 28,
    })
    execFileSync('tar', ['-x', '-C', dir], { input: tar })
  }
  const load = async (at: string) =>
    (await import(pathToFileURL(join(at, 'packages/core/src/index.ts')).href)) as typeof Core
  return [
    { name: `before (${commit})`, core: await load(dir) },
    { name: 'this tree', core: await load(root) },
  ]
}

/** The median of `values` (the upper one of an even count). */
export function median(values: readonly number[]): number {
  return [...values].sort((x, y) => x - y)[values.length >> 1]!
}
