import type { Kysely } from 'kysely'
import type { DB } from '../../schema.ts'
import type { Repositories } from '../types.ts'
import { KyselyArticleRepository } from './article-repository.ts'
import { KyselyCommentRepository } from './comment-repository.ts'
import { KyselyTagRepository } from './tag-repository.ts'
import { KyselyUserRepository } from './user-repository.ts'

/**
 * The repositories as a Kysely application writes them: every query awaited before the next, a write
 * of several statements in a transaction.
 *
 * @example
 * const { users } = kyselyRepositories(db)
 */
export function kyselyRepositories(db: Kysely<DB>): Repositories {
  return {
    users: new KyselyUserRepository(db),
    articles: new KyselyArticleRepository(db),
    comments: new KyselyCommentRepository(db),
    tags: new KyselyTagRepository(db),
  }
}
