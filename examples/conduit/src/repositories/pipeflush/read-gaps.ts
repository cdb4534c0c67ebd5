/**
 * Every place where today's read API takes more than one round trip for what a request reads, each
 * behind one function. The README's "Read-API gaps" lists them with the round trips they cost.
 *
 * 1. {@link favoritesCounts}: an aggregate per root (`favoritesCount`). The read batch tracks rows of
 *    one table; a count is not such a row. Today: a plain Kysely query on the pool beside the batch,
 *    one more round trip. Missing: aggregates in the batch, e.g. a count relation in `with`
 *    (`{ favorites: 'count' }`), or untracked rows of any Kysely select in the tick's message
 *    (`em.rows(query)`).
 * 2. {@link articlesCount}: the number of rows a list's filter matches (`articlesCount`), likewise a
 *    plain query, one more round trip. Missing: the same `em.rows(query)` (or a count beside
 *    `load(query)`).
 * 3. {@link populateArticles}: the graph of list roots selected by a Kysely query with order, limit and
 *    offset. `load(query)` takes no `with` tree, so the authors and tags are read by `populate` once
 *    the roots are known: a second batch, one more round trip. Missing: `em.load(query, { with })`,
 *    each level selected through the root query as a subquery, as `find` does with its `where`.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../../schema.ts'
import { matchingArticles } from '../article-filter.ts'
import type { ArticleFilter } from '../types.ts'
import type { Ids } from './reader-flags.ts'
import type { Article, ConduitEm } from './types.ts'

/**
 * Read-API gap 1: how many favorites each article among `articleIds` has (absent: none). A plain
 * Kysely query on the pool, not in the unit of work's batch: one round trip of its own (concurrent
 * with the batch when the pool has a free connection). `count(*)` is an int8, read as a string by
 * both drivers: returned as numbers.
 *
 * @example
 * const counts = await favoritesCounts(em.db, [1, 2]) // Map { 1 => 3 }
 */
export async function favoritesCounts(db: Kysely<DB>, articleIds: Ids): Promise<Map<number, number>> {
  if (Array.isArray(articleIds) && articleIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('favorite')
    .select((eb) => ['article_id', eb.fn.countAll<string | number>().as('n')])
    .where('article_id', 'in', articleIds)
    .groupBy('article_id')
    .execute()
  return new Map(rows.map((r) => [r.article_id, Number(r.n)]))
}

/**
 * Read-API gap 2: how many articles `filter` matches in all (a page shows `limit` of them). A plain
 * Kysely query on the pool, not in the batch: one round trip of its own.
 *
 * @example
 * await articlesCount(em.db, { tag: 'dragons' }) // 1
 */
export async function articlesCount(db: Kysely<DB>, filter: ArticleFilter): Promise<number> {
  const row = await matchingArticles(db, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Read-API gap 3: the authors and tags of list roots that `load(query)` read (it takes no `with`), in
 * a second batch once the roots are known: one more round trip. Afterwards `em.related(article,
 * 'author')` and `'tags'` are loaded.
 *
 * @example
 * const roots = await em.load(query)
 * await populateArticles(em, roots)
 */
export async function populateArticles(em: ConduitEm, roots: readonly Article[]): Promise<void> {
  if (roots.length > 0) await em.populate(roots, { author: true, tags: true })
}
