// Self time per function of a V8 CPU profile (`--profile`'s *.cpuprofile, or `node --cpu-prof`'s),
// the heaviest first, with each function's share of all samples; only pipeflush's own functions
// (packages/core) with `--core`.
//
//   npx node bench/tools/profile-top.ts bench/results/profile-pipeflush-burst-pg-mix.cpuprofile [--core] [--top 15]
import { readFileSync } from 'node:fs'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly hitCount?: number
}

interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a))
if (!file) {
  console.error('usage: profile-top.ts <file.cpuprofile> [--core] [--top N]')
  process.exit(2)
}
const core = args.includes('--core')
const top = Number(args[args.indexOf('--top') + 1]) || 15
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile

// Self time of a node: the time deltas of the samples that landed in it.
const byNode = new Map<number, number>()
profile.samples.forEach((id, k) => {
  byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[k] ?? 0))
})
const total = [...byNode.values()].reduce((a, b) => a + b, 0)
const byFunction = new Map<string, number>()
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame
  if (core && !url.includes('packages/core/')) continue
  const where = url.replace(/^.*\/packages\//, 'packages/').replace(/^.*\/node_modules\//, '')
  const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + (byNode.get(node.id) ?? 0))
}
const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)
console.log(`${file}: ${(total / 1000).toFixed(1)} ms sampled${core ? ', pipeflush functions only' : ''}`)
for (const [key, us] of rows)
  console.log(
    `${(us / 1000).toFixed(1).padStart(8)} ms  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`,
  )
