import type { BookstoreEm, Tag } from './types.ts'

/** Tags: got by name, created when missing, by the flush. */
export class TagRepository {
  readonly #em: BookstoreEm

  constructor(em: BookstoreEm) {
    this.#em = em
  }

  /**
   * The tags with these names, by name, got or created by the flush without a read: each is an upsert
   * on the unique name that updates nothing, so an existing tag comes back as it is. Links created in
   * the same flush may reference them: the flush looks their ids up by name, in the same round trip.
   *
   * @example
   * const byName = tags.getOrCreate(['sf', 'classic'])
   * em.create('book_tag', { book_id: book, tag_id: byName.get('sf')! })
   */
  getOrCreate(names: readonly string[]): Map<string, Tag> {
    const byName = new Map<string, Tag>()
    for (const name of new Set(names))
      byName.set(name, this.#em.upsert('tag', { name }, { conflict: ['name'], update: [] }))
    return byName
  }
}
