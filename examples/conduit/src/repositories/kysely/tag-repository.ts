import type { Kysely } from 'kysely'
import type { DB } from '../../schema.ts'
import type { TagRepository } from '../types.ts'

/** Tags, one awaited Kysely query at a time. */
export class KyselyTagRepository implements TagRepository {
  readonly #db: Kysely<DB>

  constructor(db: Kysely<DB>) {
    this.#db = db
  }

  async names(): Promise<string[]> {
    const db = this.#db
    const rows = await db
      .selectFrom('tag')
      .select('name')
      .where('id', 'in', db.selectFrom('article_tag').select('tag_id'))
      .orderBy('name')
      .execute()
    return rows.map((r) => r.name)
  }
}
