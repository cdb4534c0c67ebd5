import { readFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { ROOT, run } from './run.ts'

/** The published packages, by folder under `packages/`. */
export const PUBLIC_PACKAGES = ['core', 'kysely', 'drizzle', 'testkit'] as const

/** The parts of a package.json these scripts read. */
export interface Manifest {
  readonly name: string
  readonly version: string
  readonly engines?: { readonly node?: string }
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>
}

/** One packed package. */
export interface Packed {
  /** `core`, `kysely`, `drizzle`, `testkit` */
  readonly folder: string
  readonly manifest: Manifest
  /** Absolute path of the .tgz. */
  readonly tarball: string
  /** Paths inside the package (`dist/index.js`, `README.md`...). */
  readonly files: readonly string[]
}

interface NpmPackEntry {
  readonly name: string
  readonly filename: string
  readonly files: readonly { readonly path: string }[]
}

/**
 * Packs the public packages as `npm publish` would (each package's `prepack` builds its `dist/` from
 * the package folder) into `dest`, and checks what went in: the built JS, its types and source maps,
 * the sources they map to, README and LICENSE; no tests, configs or build info.
 */
export async function packPackages(dest: string): Promise<Packed[]> {
  await mkdir(dest, { recursive: true })
  const workspaces = PUBLIC_PACKAGES.flatMap((p) => ['-w', `packages/${p}`])
  const { stdout } = await run('npm', ['pack', ...workspaces, '--json', '--pack-destination', dest])
  const entries = JSON.parse(stdout) as NpmPackEntry[]
  const packed = PUBLIC_PACKAGES.map((folder) => {
    const manifest = readManifest(folder)
    const entry = entries.find((e) => e.name === manifest.name)
    if (!entry) throw new Error(`npm pack gave no tarball for ${manifest.name}`)
    return { folder, manifest, tarball: join(dest, entry.filename), files: entry.files.map((f) => f.path) }
  })
  for (const p of packed) checkContents(p)
  return packed
}

/** The package.json of `packages/<folder>`. */
export function readManifest(folder: string): Manifest {
  return JSON.parse(readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8')) as Manifest
}

const REQUIRED = [
  'package.json',
  'README.md',
  'LICENSE',
  'dist/index.js',
  'dist/index.d.ts',
  'dist/index.js.map',
  'dist/index.d.ts.map',
  'src/index.ts',
]
const FORBIDDEN = [
  /^test\//,
  /(^|\/)tsconfig[^/]*\.json$/,
  /\.tsbuildinfo$/,
  /(^|\/)node_modules\//,
  /\.test\.ts$/,
]

function checkContents(p: Packed): void {
  const missing = REQUIRED.filter((f) => !p.files.includes(f))
  const extra = p.files.filter((f) => FORBIDDEN.some((re) => re.test(f)))
  // Every emitted module has its types and maps, and every source file was built.
  const sources = p.files.filter((f) => f.startsWith('src/') && f.endsWith('.ts'))
  for (const s of sources) {
    const base = `dist/${s.slice('src/'.length, -'.ts'.length)}`
    for (const ext of ['.js', '.d.ts', '.js.map', '.d.ts.map']) {
      if (!p.files.includes(base + ext)) missing.push(base + ext)
    }
  }
  const stale = p.files.filter(
    (f) => f.startsWith('dist/') && f.endsWith('.js') && !sources.includes(`src/${f.slice(5, -3)}.ts`),
  )
  if (missing.length || extra.length || stale.length) {
    throw new Error(
      `${p.manifest.name}: the tarball ${[
        missing.length ? `lacks ${missing.join(', ')}` : '',
        extra.length ? `holds files it should not: ${extra.join(', ')}` : '',
        stale.length ? `holds built files without a source: ${stale.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ')}`,
    )
  }
}
