import { type Collection, LoadStrategy } from '@mikro-orm/core'
import { MikroORM } from '@mikro-orm/postgresql'
import { slugOf } from '@pipeflush/example-conduit/domain/slug'
import { createConnectionCounter } from '../measure/connection-counter.ts'
import type { ArticleJson, CommentJson, ConduitClient, ConduitSeries } from './conduit-requests.ts'
import { FEED_LIMIT } from './conduit-requests.ts'
import { conduitEntitySchemas } from './mikroorm-conduit-schema.ts'

type Entity = Record<string, unknown>

const items = (v: unknown) => (v as Collection<Entity>).getItems()
const iso = (v: unknown) => (v as Date).toISOString()

/** What an article view populates, and the reader's rows among its collections (the flags). */
const VIEW_POPULATE = ['author', 'author.followerLinks', 'tags', 'favorites'] as const
const viewWhere = (reader: number) => ({
  author: { followerLinks: { follower: reader } },
  favorites: { user: reader },
})

/** The spec's `Profile` of `user`; `following` by default: its `followerLinks` hold only the reader's follow row, if any. */
function profileOf(user: Entity, following = items(user['followerLinks']).length > 0): ArticleJson['author'] {
  return {
    username: user['username'] as string,
    bio: user['bio'] as string,
    image: user['image'] as string,
    following,
  }
}

/** The spec's `Article` of an article populated with {@link VIEW_POPULATE} and {@link viewWhere}. */
function articleOf(a: Entity, body = true): ArticleJson {
  return {
    slug: a['slug'] as string,
    title: a['title'] as string,
    description: a['description'] as string,
    ...(body ? { body: a['body'] as string } : {}),
    tagList: items(a['tags'])
      .map((t) => t['name'] as string)
      .sort(),
    createdAt: iso(a['created_at']),
    updatedAt: iso(a['updated_at']),
    favorited: items(a['favorites']).length > 0,
    favoritesCount: a['favoritesCount'] as number,
    author: profileOf(a['author'] as Entity),
  }
}

/** The spec's `Comment` of a comment whose author was populated with its `followerLinks` (the reader's). */
function commentOf(c: Entity): CommentJson {
  return {
    id: c['id'] as number,
    createdAt: iso(c['created_at']),
    updatedAt: iso(c['updated_at']),
    body: c['body'] as string,
    author: profileOf(c['author'] as Entity),
  }
}

/**
 * MikroORM 7 serving the Conduit requests its best way, on node-postgres: `EntitySchema` entities, a
 * fresh `em.fork()` per request; a view is one `find` with `populate` and the joined strategy (author,
 * tags, and the reader's favorite and follow rows as collections filtered by `populateWhere`; the
 * favorites count a formula), the feed's total an `em.count` beside it (`Promise.all`: two
 * connections); a write reads (create: the author and the existing tags, side by side), then
 * `em.create` and one `em.flush()` (BEGIN, its statements awaited in turn, COMMIT).
 */
export const mikroOrmConduit: ConduitSeries = {
  name: 'mikroorm',
  driver: 'pg',
  id: 'mikroorm',
  description:
    "MikroORM 7: find with populate (strategy 'joined', populateWhere for the reader's rows, a formula for favoritesCount) and em.count side by side; em.create and one em.flush() per write",
  unavailableReason: async () => undefined,
  async open(target, pool): Promise<ConduitClient> {
    const counter = createConnectionCounter()
    const e = conduitEntitySchemas()
    const orm = await MikroORM.init({
      clientUrl: target.url,
      entities: Object.values(e),
      pool: { min: 0, max: pool },
      driverOptions: { stream: counter.stream, application_name: 'pipeflush-bench' },
      debug: false,
    })
    await orm.em.getConnection().execute('select 1')
    const view = (em: typeof orm.em, slug: string, reader: number, comments = false) =>
      em.findOneOrFail(e.article, { slug } as never, {
        populate: [
          ...VIEW_POPULATE,
          ...(comments ? ['comments', 'comments.author', 'comments.author.followerLinks'] : []),
        ] as never,
        populateWhere: {
          ...viewWhere(reader),
          ...(comments ? { comments: { author: { followerLinks: { follower: reader } } } } : {}),
        } as never,
        ...(comments ? { populateOrderBy: { comments: { id: 'desc' } } as never } : {}),
        strategy: LoadStrategy.JOINED,
      }) as Promise<Entity>
    return {
      counter,
      async feed({ reader }) {
        const em = orm.em.fork()
        const where = { author: { followerLinks: { $some: { follower: reader } } } } as never
        const [page, articlesCount] = await Promise.all([
          em.find(e.article, where, {
            populate: VIEW_POPULATE as never,
            populateWhere: viewWhere(reader) as never,
            orderBy: [{ created_at: 'desc' }, { id: 'desc' }] as never,
            limit: FEED_LIMIT,
            strategy: LoadStrategy.JOINED,
          }),
          em.count(e.article, where),
        ])
        return { answer: { articles: (page as Entity[]).map((a) => articleOf(a, false)), articlesCount } }
      },
      async article({ reader, slug }) {
        const article = await view(orm.em.fork(), slug, reader, true)
        return {
          answer: { article: articleOf(article), comments: items(article['comments']).map(commentOf) },
        }
      },
      async create({ author, article }) {
        const em = orm.em.fork()
        const names = [...new Set(article.tagList)]
        const [user, existing] = await Promise.all([
          em.findOneOrFail(e.user, { id: author } as never) as Promise<Entity>,
          em.find(e.tag, { name: { $in: names } } as never) as Promise<Entity[]>,
        ])
        const byName = new Map(existing.map((t) => [t['name'] as string, t]))
        const tags = names.map((name) => byName.get(name) ?? (em.create(e.tag, { name } as never) as Entity))
        const created = em.create(e.article, {
          slug: slugOf(article.title),
          title: article.title,
          description: article.description,
          body: article.body,
          author: user,
          tags,
        } as never) as Entity
        await em.flush()
        const answer = {
          article: {
            slug: created['slug'] as string,
            title: article.title,
            description: article.description,
            body: article.body,
            tagList: [...names].sort(),
            createdAt: iso(created['created_at']),
            updatedAt: iso(created['updated_at']),
            favorited: false,
            favoritesCount: 0,
            author: profileOf(user, false),
          },
        }
        return { answer }
      },
      async favorite({ reader, slug }) {
        const em = orm.em.fork()
        const found = await view(em, slug, reader)
        const article = articleOf(found)
        if (article.favorited) return { answer: { article } }
        em.create(e.favorite, { user: em.getReference(e.user, reader as never), article: found } as never)
        await em.flush()
        return {
          answer: { article: { ...article, favorited: true, favoritesCount: article.favoritesCount + 1 } },
        }
      },
      close: () => orm.close(true),
    }
  },
}
