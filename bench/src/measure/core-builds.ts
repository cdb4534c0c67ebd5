import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type * as Core from '@pipeflush/core'
import { type Units, unitInFork } from '../series/shop-pipeflush.ts'
import { nextValues, type Work } from '../workload.ts'

/** A build of pipeflush's core loaded in this process, and how a report names it. */
export interface CoreBuild {
  readonly name: string
  readonly core: typeof Core
}

const ROOT = resolve(import.meta.dirname, '../../..')

/** The core whose `packages/core/src` lies under `dir`, as its own module graph (its own caches). */
async function load(dir: string): Promise<typeof Core> {
  return (await import(pathToFileURL(join(dir, 'packages/core/src/index.ts')).href)) as typeof Core
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
  const commit = execFileSync('git', ['rev-parse', '--short', before], { cwd: ROOT }).toString().trim()
  const dir = join(ROOT, '.cache', 'ab-cpu', commit)
  if (!existsSync(join(dir, 'packages/core/src/index.ts'))) {
    mkdirSync(dir, { recursive: true })
    const tar = execFileSync('git', ['archive', commit, 'packages/core/src'], {
      cwd: ROOT,
      maxBuffer: 1 << 28,
    })
    execFileSync('tar', ['-x', '-C', dir], { input: tar })
  }
  return [
    { name: `before (${commit})`, core: await load(dir) },
    { name: 'this tree', core: await load(ROOT) },
  ]
}

/** One text edit of a source file: `find` (which must occur exactly once) becomes `replace`. */
export interface SourceEdit {
  /** The file, under `packages/core/src`. */
  readonly file: string
  readonly find: string
  readonly replace: string
}

/**
 * This tree's core with `edits` made to a copy of its sources (under `.cache/patched-core/`, made
 * afresh each call), loaded as its own module graph: measuring code put into the core for one run,
 * the tree left as it is. An edit whose text is not found (the source changed) fails at once.
 *
 * @example
 * const core = await patchedCore([{ file: 'flush/flush-unit-of-work.ts', find: 'a', replace: 'b' }])
 */
export async function patchedCore(edits: readonly SourceEdit[]): Promise<typeof Core> {
  const dir = join(ROOT, '.cache', 'patched-core')
  rmSync(dir, { recursive: true, force: true })
  cpSync(join(ROOT, 'packages/core/src'), join(dir, 'packages/core/src'), { recursive: true })
  for (const edit of edits) {
    const path = join(dir, 'packages/core/src', edit.file)
    const text = readFileSync(path, 'utf8')
    const at = text.indexOf(edit.find)
    if (at < 0 || text.indexOf(edit.find, at + 1) >= 0)
      throw new Error(`${edit.file}: the text to edit is not there exactly once (the source changed?)`)
    writeFileSync(path, text.slice(0, at) + edit.replace + text.slice(at + edit.find.length))
  }
  return load(dir)
}

/** An entity manager of one build on its own connection, and the shop units it flushes. */
export interface FlushSide {
  readonly root: Core.EntityManager
  /** The current cell's units (a fresh `Units` per cell). */
  units: Units
}

/**
 * The next flush of `work` on `side`, prepared (its reads, its changes) but not sent: the shop
 * cell's next unit read into a fork, or a fork with `rowsPerTable` new rows in each table.
 */
export async function prepareFlush(side: FlushSide, work: Work): Promise<Core.EntityManager> {
  if (work.shop) return unitInFork(side.root, await side.units.next(work.shop))
  const em = side.root.fork()
  for (const table of work.tables) for (const v of nextValues(work.rowsPerTable)) em.create(table, { v })
  return em
}

/** The median of `values` (the upper one of an even count). */
export function median(values: readonly number[]): number {
  return [...values].sort((x, y) => x - y)[values.length >> 1]!
}
