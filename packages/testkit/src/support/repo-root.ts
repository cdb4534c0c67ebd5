import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The monorepo's root: the nearest folder above this package whose package.json has workspaces (the
 * current directory when there is none).
 *
 * @example
 * const shared = join(repoRoot(), '..', 'shared') // a folder beside the checkout
 */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const pkg = join(dir, 'package.json')
    if (existsSync(pkg)) {
      const json = JSON.parse(readFileSync(pkg, 'utf8')) as { workspaces?: unknown }
      if (json.workspaces) return dir
    }
    const parent = dirname(dir)
    if (parent === dir) return process.cwd()
    dir = parent
  }
}

/** The git-ignored cache folder of the project (`.cache/` at the root), or `PIPEFLUSH_CACHE_DIR`. */
export function cacheDir(): string {
  return process.env['PIPEFLUSH_CACHE_DIR'] ?? join(repoRoot(), '.cache')
}
