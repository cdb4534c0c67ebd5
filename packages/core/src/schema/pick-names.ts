/** One relation of a table waiting for its name: the names it may take, best first. */
export interface NameWish {
  /** Names to try in order; the first that is free is taken. */
  readonly candidates: readonly string[]
  /** Tells it apart from every other wish of the table (orders the numbered last resort). */
  readonly identity: string
}

/**
 * Names the relations of one table, whatever order they come in: in rounds, each relation not yet
 * named asks for its next candidate; a name asked by one relation alone, not a column (`taken`) nor
 * given or refused before, nor one starting with `$` (the options of a `with` level), is given; a name
 * two relations ask for in the same round goes to neither (nor to any later one) and both move on. A
 * relation whose candidates all fail gets its last one numbered (`_2`, `_3`, ... in the order of their
 * identities; its leading `$` signs left out).
 *
 * @example
 * pickNames([{ candidates: ['posts', 'posts_by_author'], identity: 'a' }], new Set(['title']))
 * // ['posts']
 */
export function pickNames(wishes: readonly NameWish[], taken: ReadonlySet<string>): string[] {
  const refused = new Set(taken)
  const names: (string | undefined)[] = wishes.map(() => undefined)
  const next = wishes.map(() => 0)
  for (;;) {
    const asked = new Map<string, number[]>()
    for (let i = 0; i < wishes.length; i++) {
      if (names[i] !== undefined) continue
      const name = wishes[i]!.candidates[next[i]!]
      if (name === undefined) continue
      const askers = asked.get(name)
      if (askers === undefined) asked.set(name, [i])
      else askers.push(i)
    }
    if (asked.size === 0) break
    for (const [name, askers] of asked) {
      if (askers.length === 1 && name !== '' && !name.startsWith('$') && !refused.has(name))
        names[askers[0]!] = name
      else for (const i of askers) next[i] = next[i]! + 1
      refused.add(name)
    }
  }
  const left = wishes
    .map((w, i) => ({ w, i }))
    .filter(({ i }) => names[i] === undefined)
    .sort((a, b) => (a.w.identity < b.w.identity ? -1 : a.w.identity > b.w.identity ? 1 : 0))
  for (const { w, i } of left) {
    const base = (w.candidates.at(-1) ?? '').replace(/^\$+/, '') || 'relation'
    let n = 2
    while (refused.has(`${base}_${n}`)) n++
    names[i] = `${base}_${n}`
    refused.add(names[i])
  }
  return names as string[]
}
