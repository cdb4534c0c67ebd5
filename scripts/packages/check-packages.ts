/**
 * `npm run check:packages`: packs the public packages (their `prepack` builds them) and lints the
 * tarballs with publint (every message, suggestions included, is a failure) and arethetypeswrong
 * (profile `esm-only`, see below). Prints one line per package and tool; `--verbose` prints the
 * tools' own reports too.
 *
 * Why `esm-only`: the packages ship ESM only (no CommonJS build). Of attw's resolutions it skips
 * `node10` (TypeScript's `moduleResolution: node`, which does not read `exports`: such a project
 * cannot resolve these packages at all) and `node16` from CommonJS (attw reports "ESM, dynamic import
 * only"; on Node >= 22.12, the floor of the packages' `engines`, `require()` of ESM works, which the
 * consumer test checks). `node16` from ESM and `bundler` must resolve every entry point to types
 * that match the JavaScript.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { packPackages } from './pack.ts'
import { ROOT, run, seconds } from './run.ts'

const verbose = process.argv.includes('--verbose')
const started = performance.now()
const dir = await mkdtemp(join(tmpdir(), 'pipeflush-check-packages-'))
let failures = 0
try {
  const packed = await packPackages(dir)
  console.log(`packed ${packed.map((p) => `${p.manifest.name} (${p.files.length} files)`).join(', ')}`)
  for (const p of packed) {
    const data = await readFile(p.tarball)
    const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)
    const { messages, pkg } = await publint({ pack: { tarball }, level: 'suggestion', strict: true })
    if (messages.length === 0) {
      console.log(`publint ${p.manifest.name}: no messages`)
    } else {
      failures++
      console.log(`publint ${p.manifest.name}: ${messages.length} message(s)`)
      for (const m of messages)
        console.log(`  ${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`)
    }

    const attwArgs = [
      'attw',
      '--profile',
      'esm-only',
      '--no-color',
      '--no-emoji',
      '--format',
      'ascii',
      p.tarball,
    ]
    try {
      const { stdout } = await run('npx', ['--no-install', ...attwArgs], { cwd: ROOT })
      console.log(`attw --profile esm-only ${p.manifest.name}: no problems`)
      if (verbose) console.log(stdout)
    } catch (e) {
      failures++
      console.log(`attw --profile esm-only ${p.manifest.name}: problems\n${(e as Error).message}`)
    }
  }
} catch (e) {
  failures++
  console.log(`could not pack the packages: ${(e as Error).message}`)
} finally {
  await rm(dir, { recursive: true, force: true })
}
console.log(
  `${failures ? `${failures} failure(s)` : 'packages ok'} in ${seconds(performance.now() - started)}`,
)
process.exitCode = failures ? 1 : 0
