import { anyOf } from './any-of.ts'
import type { BookstoreEm, Publisher } from './types.ts'

/** Publishers: looked up by name, created when missing. */
export class PublisherRepository {
  readonly #em: BookstoreEm

  constructor(em: BookstoreEm) {
    this.#em = em
  }

  /**
   * The publishers with these names, by name; missing ones are created (inserted by the flush).
   * One query, whatever the number of names.
   *
   * @example
   * const byName = await publishers.getOrCreate(['Ace', 'Tor'])
   */
  async getOrCreate(names: readonly string[]): Promise<{ byName: Map<string, Publisher>; created: number }> {
    const wanted = [...new Set(names)]
    const byName = new Map<string, Publisher>()
    if (wanted.length === 0) return { byName, created: 0 }
    const db = this.#em.db
    for (const p of await this.#em.load(
      db.selectFrom('publisher').selectAll().where('name', '=', anyOf(wanted, 'text')),
    )) {
      byName.set(p.name, p)
    }
    let created = 0
    for (const name of wanted) {
      if (byName.has(name)) continue
      byName.set(name, this.#em.create('publisher', { name }))
      created++
    }
    return { byName, created }
  }
}
