// Self time per function of a V8 CPU profile (`--profile`'s *.cpuprofile, or `node --cpu-prof`'s),
// the heaviest first, with each function's share of all samples; only pipeflush's own functions
// (packages/core) with `--core`. With `--stages a,b,c`, the time spent under each function so named
// instead (inclusive: a sample counts once for each named function on its stack). Either way per
// flush when `--per N` gives the number of flushes profiled, and with `--within name` only the
// samples with that function on their stack (a flush's own calls, say, apart from the same functions
// called by a benchmark's setup; shares stay of every sample).
//
//   npx node bench/tools/profile-top.ts bench/results/profile-pipeflush-burst-pg-mix.cpuprofile [--core] [--top 15]
//   npx node bench/tools/profile-top.ts <file> --within serverFilled --per 3000
//   npx node bench/tools/profile-top.ts <file> --stages draftFlush,completePlan,sendByMode,applyFlushed --per 900
import { readFileSync } from 'node:fs'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly hitCount?: number
  readonly children?: readonly number[]
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
const stagesArg = args.indexOf('--stages')
const stages = stagesArg < 0 ? undefined : (args[stagesArg + 1] ?? '').split(',')
const withinArg = args.indexOf('--within')
const within = withinArg < 0 ? undefined : args[withinArg + 1]
const perArg = args.indexOf('--per')
const per = perArg < 0 ? 1 : Number(args[perArg + 1]) || 1
const top = Number(args[args.indexOf('--top') + 1]) || 15
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile

const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))

/** Whether the function `name` is on the stack of node `id` (the node itself included). */
function on(id: number, name: string): boolean {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
    if (nodes.get(at)?.callFrame.functionName === name) return true
  return false
}

// Self time of a node: the time deltas of the samples that landed in it (with `--within`, only the
// nodes under that function).
const byNode = new Map<number, number>()
profile.samples.forEach((id, k) => {
  byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[k] ?? 0))
})
const total = [...byNode.values()].reduce((a, b) => a + b, 0)
if (within !== undefined) for (const id of [...byNode.keys()]) if (!on(id, within)) byNode.delete(id)
const unit = per === 1 ? 'ms' : 'µs per flush'
/** `us` microseconds of samples as the unit printed: ms in all, or µs per flush with `--per`. */
const shown = (us: number) => (per === 1 ? us / 1000 : us / per)
if (stages !== undefined) {
  printStages(stages)
  process.exit(0)
}
const byFunction = new Map<string, number>()
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame
  if (core && !url.includes('packages/core/')) continue
  const where = url.replace(/^.*\/packages\//, 'packages/').replace(/^.*\/node_modules\//, '')
  const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + (byNode.get(node.id) ?? 0))
}
const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)
const only = [core ? 'pipeflush functions only' : '', within ? `under ${within} only` : ''].filter(Boolean)
console.log(
  `${file}: ${(total / 1000).toFixed(1)} ms sampled${only.length > 0 ? `, ${only.join(', ')}` : ''}; self time, ${unit}`,
)
for (const [key, us] of rows)
  console.log(`${shown(us).toFixed(1).padStart(8)}  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`)

/** Inclusive time under each function named in `names` (a sample counted once per name on its stack). */
function printStages(names: readonly string[]): void {
  const under = new Map<string, number>(names.map((n) => [n, 0]))
  for (const [id, us] of byNode) {
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = nodes.get(at)?.callFrame.functionName ?? ''
      if (under.has(name) && !seen.has(name)) {
        seen.add(name)
        under.set(name, under.get(name)! + us)
      }
    }
  }
  console.log(`${file}: ${(total / 1000).toFixed(1)} ms sampled; time under each function, ${unit}`)
  for (const [name, us] of under) console.log(`${shown(us).toFixed(1).padStart(10)}  ${name}`)
}
