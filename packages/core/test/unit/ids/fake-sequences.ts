import type { IdQuery } from '../../../src/ids/id-allocator.ts'

const UNNEST = /unnest\('\{([^}]*)\}'::text\[\], '\{([^}]*)\}'::int4\[\][,)]/

/**
 * Sequences without a database: `query` reads the sequence names and counts of a `fetchIdsSql` text
 * (simple names only: no quotes or backslashes; sequences without end, so that the counts needed
 * are not read) and answers a `{ seq, ids }` row per sequence as the
 * server would (`ids`: its ids joined by commas), each sequence counting from `start` (1). Sequences in `denied` are
 * left out of a `usableOnly` query, as `has_sequence_privilege` would. Every request is recorded.
 */
export class FakeSequences {
  readonly #next = new Map<string, number>()
  /** Per query: the counts it asked for, in the order of the text. */
  readonly requests: Map<string, number>[] = []
  readonly texts: string[] = []
  readonly denied = new Set<string>()

  constructor(start: Readonly<Record<string, number>> = {}) {
    for (const [seq, n] of Object.entries(start)) this.#next.set(seq, n)
  }

  readonly query: IdQuery = async (text) => {
    this.texts.push(text)
    const match = UNNEST.exec(text)
    if (match === null) throw new Error(`not an id query: ${text}`)
    const names = match[1] === '' ? [] : match[1]!.split(',').map((s) => JSON.parse(s) as string)
    const counts = match[2] === '' ? [] : match[2]!.split(',').map(Number)
    const asked = new Map(names.map((name, i) => [name, counts[i]!]))
    this.requests.push(asked)
    const usableOnly = text.includes('has_sequence_privilege')
    const rows: { seq: string; ids: string }[] = []
    for (const seq of asked.keys()) {
      if (usableOnly && this.denied.has(seq)) continue
      const ids: string[] = []
      for (let i = 0; i < asked.get(seq)!; i++) {
        const id = this.#next.get(seq) ?? 1
        this.#next.set(seq, id + 1)
        ids.push(String(id))
      }
      rows.push({ seq, ids: ids.join(',') })
    }
    return rows
  }
}

/** `['1', '2', ...]` from `from` to `to` included. */
export function range(from: number, to: number): string[] {
  const out: string[] = []
  for (let i = from; i <= to; i++) out.push(String(i))
  return out
}
