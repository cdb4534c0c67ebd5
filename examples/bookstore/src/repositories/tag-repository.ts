import { anyOf } from './any-of.ts'
import type { BookstoreEm, Tag } from './types.ts'

/** Tags: looked up by name, created when missing. */
export class TagRepository {
  readonly #em: BookstoreEm

  constructor(em: BookstoreEm) {
    this.#em = em
  }

  /**
   * The tags with these names, by name; missing ones are created (inserted by the flush). One query.
   *
   * @example
   * const { byName } = await tags.getOrCreate(['sf', 'classic'])
   */
  async getOrCreate(names: readonly string[]): Promise<{ byName: Map<string, Tag>; created: number }> {
    const wanted = [...new Set(names)]
    const byName = new Map<string, Tag>()
    if (wanted.length === 0) return { byName, created: 0 }
    const db = this.#em.db
    for (const t of await this.#em.load(
      db.selectFrom('tag').selectAll().where('name', '=', anyOf(wanted, 'text')),
    ))
      byName.set(t.name, t)
    let created = 0
    for (const name of wanted) {
      if (byName.has(name)) continue
      byName.set(name, this.#em.create('tag', { name }))
      created++
    }
    return { byName, created }
  }
}
