import type { Repositories } from '../types.ts'
import { PipeflushArticleRepository } from './article-repository.ts'
import { PipeflushCommentRepository } from './comment-repository.ts'
import { PipeflushTagRepository } from './tag-repository.ts'
import type { ConduitEm } from './types.ts'
import { PipeflushUserRepository } from './user-repository.ts'

/**
 * The repositories of one unit of work (`factory.em()`): every read they start in one tick goes in one
 * round trip, every write waits for the request's flush.
 *
 * @example
 * const { users, articles } = pipeflushRepositories(factory.em())
 */
export function pipeflushRepositories(em: ConduitEm): Repositories {
  const tags = new PipeflushTagRepository(em)
  return {
    users: new PipeflushUserRepository(em),
    articles: new PipeflushArticleRepository(em, tags),
    comments: new PipeflushCommentRepository(em),
    tags,
  }
}
