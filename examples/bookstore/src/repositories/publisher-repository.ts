import type { BookstoreEm, Publisher } from './types.ts'

/** Publishers: got by name, created when missing, by the flush. */
export class PublisherRepository {
  readonly #em: BookstoreEm

  constructor(em: BookstoreEm) {
    this.#em = em
  }

  /**
   * The publishers with these names, by name, got or created by the flush without a read (an upsert
   * on the unique name that updates nothing; see `TagRepository.getOrCreate`).
   *
   * @example
   * const byName = publishers.getOrCreate(['Ace', 'Tor'])
   */
  getOrCreate(names: readonly string[]): Map<string, Publisher> {
    const byName = new Map<string, Publisher>()
    for (const name of new Set(names))
      byName.set(name, this.#em.upsert('publisher', { name }, { conflict: ['name'], update: [] }))
    return byName
  }
}
