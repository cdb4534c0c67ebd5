import type { TagRepository } from '../types.ts'
import type { ConduitEm, Tag } from './types.ts'

/** Tags: listed, and got or created by the flush. */
export class PipeflushTagRepository implements TagRepository {
  readonly #em: ConduitEm

  constructor(em: ConduitEm) {
    this.#em = em
  }

  /** A `load(query)`: the tags linked to an article, by name. */
  async names(): Promise<string[]> {
    const db = this.#em.db
    const tags = await this.#em.load(
      db
        .selectFrom('tag')
        .selectAll()
        .where('id', 'in', db.selectFrom('article_tag').select('tag_id'))
        .orderBy('name'),
    )
    return tags.map((t) => t.name)
  }

  /**
   * The tags of these names, by name, got or created by the flush without a read: each an upsert on
   * the unique name that updates nothing. Links created in the same flush may reference them: the flush
   * looks their ids up by name, in the same round trip (see docs/upserts.md).
   *
   * @example
   * const byName = tags.getOrCreate(['dragons', 'training'])
   * em.create('article_tag', { article_id: article, tag_id: byName.get('dragons')! })
   */
  getOrCreate(names: readonly string[]): Map<string, Tag> {
    const byName = new Map<string, Tag>()
    for (const name of new Set(names))
      byName.set(name, this.#em.upsert('tag', { name }, { conflict: ['name'], update: [] }))
    return byName
  }
}
