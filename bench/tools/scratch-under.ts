// self time of functions under a given function (inclusive subtree), per call count given
import { readFileSync } from 'node:fs'

const [file, root, perS] = process.argv.slice(2)
const per = Number(perS)
const p = JSON.parse(readFileSync(file!, 'utf8'))
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]))
const self = new Map<number, number>()
p.samples.forEach((id: number, k: number) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[k] ?? 0)))
const parent = new Map<number, number>()
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const under = (id: number) => {
  for (let x: number | undefined = id; x !== undefined; x = parent.get(x))
    if (byId.get(x).callFrame.functionName === root) return true
  return false
}
const out = new Map<string, number>()
let total = 0
for (const n of p.nodes) {
  const t = self.get(n.id) ?? 0
  if (!t || !under(n.id)) continue
  total += t
  const f = n.callFrame
  const k = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(packages|node_modules)\//, '')}:${f.lineNumber + 1}`
  out.set(k, (out.get(k) ?? 0) + t)
}
console.log(`${root}: ${(total / per).toFixed(1)} µs per call`)
for (const [k, v] of [...out].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log((v / per).toFixed(2).padStart(8), k)
