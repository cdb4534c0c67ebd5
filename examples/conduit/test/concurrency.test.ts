import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/schema.ts'
import { type Client, createArticle, register, send, uniqueName } from './support/api-client.ts'
import { conduitOn, configurations } from './support/conduit-under-test.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
  // A few ms per answer: the requests' reads and flushes interleave, as they do over a network.
  await db.proxy.setLatency(3)
})

const CLIENTS = 8
const FANS = 12
/** Users favoriting and commenting on an article while its author deletes it. */
const RACERS = 12

describe.each(configurations(TEST_DRIVERS))(
  '$driver, $implementation: clients at once',
  ({ driver, implementation }) => {
    test(`${CLIENTS} clients at once each read back exactly their own writes`, async () => {
      const conduit = await conduitOn(db, driver, implementation)
      const api = conduit.apiUrl
      const shared = uniqueName('shared')
      try {
        const results = await Promise.all(
          Array.from({ length: CLIENTS }, async (_, i) => {
            const me = await register(api, `client${i}`)
            const own = `own-${i}-${shared}`
            const slug = await createArticle(me, `Article of client ${i}`, [shared, own])
            const favorite = await me.send('POST', `/articles/${slug}/favorite`)
            const comment = await me.send('POST', `/articles/${slug}/comments`, {
              comment: { body: `From ${i}.` },
            })
            const article = await me.send('GET', `/articles/${slug}`)
            const comments = await send(api, 'GET', `/articles/${slug}/comments`)
            const mine = await send(api, 'GET', `/articles?author=${me.username}`)
            const favorited = await send(api, 'GET', `/articles?favorited=${me.username}`)
            const user = await me.send('GET', '/user')
            return { i, me, own, slug, favorite, comment, article, comments, mine, favorited, user }
          }),
        )
        for (const r of results) {
          const { i, me, own, slug } = r
          expect(r.favorite.body.article).toMatchObject({ slug, favorited: true, favoritesCount: 1 })
          expect(r.comment.status).toBe(200)
          expect(r.article.body.article).toMatchObject({
            slug,
            title: `Article of client ${i}`,
            tagList: [own, shared].sort(),
            favorited: true,
            favoritesCount: 1,
            author: { username: me.username, following: false },
          })
          expect(r.comments.body.comments).toEqual([r.comment.body.comment])
          expect(r.comments.body.comments[0]).toMatchObject({
            body: `From ${i}.`,
            author: { username: me.username },
          })
          expect(r.mine.body.articlesCount).toBe(1)
          expect(r.mine.body.articles.map((a: { slug: string }) => a.slug)).toEqual([slug])
          expect(r.favorited.body.articles.map((a: { slug: string }) => a.slug)).toEqual([slug])
          expect(r.user.body.user).toMatchObject({ username: me.username, email: me.email })
        }
        // The shared tag was got or created by eight requests at once: one row, eight links.
        const [tag] = await db.sql`select count(*)::int as n, min(id) as id from tag where name = ${shared}`
        expect(tag!['n']).toBe(1)
        const [links] = await db.sql`select count(*)::int as n from article_tag where tag_id = ${tag!['id']}`
        expect(links!['n']).toBe(CLIENTS)
        const tags = (await send(api, 'GET', '/tags')).body.tags as string[]
        expect(tags).toEqual(expect.arrayContaining([shared, ...results.map((r) => r.own)]))
      } finally {
        await conduit.close()
      }
    })

    test(`${FANS} users favoriting one article at once leave an exact favoritesCount`, async () => {
      const conduit = await conduitOn(db, driver, implementation)
      const api = conduit.apiUrl
      try {
        const author = await register(api, 'author')
        const slug = await createArticle(author, 'Popular')
        const fans: Client[] = await Promise.all(
          Array.from({ length: FANS }, (_, i) => register(api, `fan${i}`)),
        )
        const count = async () =>
          (await send(api, 'GET', `/articles/${slug}`)).body.article.favoritesCount as number

        const favorites = await Promise.all(fans.map((f) => f.send('POST', `/articles/${slug}/favorite`)))
        for (const f of favorites) {
          expect(f.status).toBe(200)
          expect(f.body.article.favorited).toBe(true)
          expect(f.body.article.favoritesCount).toBeGreaterThanOrEqual(1)
          expect(f.body.article.favoritesCount).toBeLessThanOrEqual(FANS)
        }
        expect(await count()).toBe(FANS)
        // Favoriting again, all at once, changes nothing.
        const again = await Promise.all(fans.map((f) => f.send('POST', `/articles/${slug}/favorite`)))
        expect(again.map((a) => a.body.article.favoritesCount)).toEqual(fans.map(() => FANS))
        expect(await count()).toBe(FANS)
        // Half of them unfavorite at once, while the others read it.
        const leaving = fans.slice(0, FANS / 2)
        await Promise.all([
          ...leaving.map((f) => f.send('DELETE', `/articles/${slug}/favorite`)),
          ...fans.slice(FANS / 2).map((f) => f.send('GET', `/articles/${slug}`)),
        ])
        expect(await count()).toBe(FANS / 2)
        const [row] = await db.sql`
        select count(*)::int as n from favorite where article_id = (select id from article where slug = ${slug})`
        expect(row!['n']).toBe(FANS / 2)
        for (const f of fans) {
          const seen = (await f.send('GET', `/articles/${slug}`)).body.article
          expect(seen.favorited).toBe(!leaving.includes(f))
        }
      } finally {
        await conduit.close()
      }
    })

    // An article deleted while others favorite and comment on it: the delete read its favorites and
    // comments, then one committed before its flush (a foreign key refused it: a 500 once the retries
    // ran out, found by an outside probe with 20 users), or the favorite referenced a row gone. The
    // delete locks the article as it reads it (the others' foreign key checks wait for it), and a
    // write meeting a row gone runs again on what is stored then: a delete, favorites and comments, or
    // 404s.
    test('an article deleted while others favorite and comment on it: no 500, and nothing left of it once deleted', async () => {
      const conduit = await conduitOn(db, driver, implementation)
      try {
        const author = await register(conduit.apiUrl, 'deleter')
        const fans: Client[] = await Promise.all(
          Array.from({ length: RACERS }, (_, i) => register(conduit.apiUrl, `racer${i}`)),
        )
        for (let k = 0; k < 6; k++) {
          const slug = await createArticle(author, `Deleted while favored ${k}`)
          const answers = await Promise.all([
            author.send('DELETE', `/articles/${slug}`),
            ...fans.map((f, i) =>
              i % 2 === 0
                ? f.send('POST', `/articles/${slug}/favorite`)
                : f.send('POST', `/articles/${slug}/comments`, { comment: { body: 'racing' } }),
            ),
          ])
          const statuses = answers.map((r) => r.status)
          expect(statuses[0], `statuses ${statuses.join(', ')}`).toBe(204)
          expect(
            statuses.slice(1).filter((s) => s !== 200 && s !== 404),
            `statuses ${statuses.join(', ')}`,
          ).toEqual([])
          const [left] = await db.sql`select count(*)::int as n from article where slug = ${slug}`
          expect(left!['n']).toBe(0)
        }
      } finally {
        await conduit.close()
      }
    })

    // An update of an article its author deletes at the same moment: the update finds no row (plain
    // Kysely answered 500, found by a review) and runs again: a 404, or it went first.
    test('an article updated while it is deleted: 200 or 404, never 500', async () => {
      const conduit = await conduitOn(db, driver, implementation)
      try {
        const author = await register(conduit.apiUrl, 'updeleter')
        for (let k = 0; k < 4; k++) {
          const slug = await createArticle(author, `Updated while deleted ${k}`)
          const [deleted, updated] = await Promise.all([
            author.send('DELETE', `/articles/${slug}`),
            author.send('PUT', `/articles/${slug}`, { article: { body: 'changed' } }),
          ])
          expect([deleted.status, updated.status]).toEqual([
            204,
            expect.toSatisfy((s) => s === 200 || s === 404),
          ])
        }
      } finally {
        await conduit.close()
      }
    })

    // The same request twice at once (a double click): each answers as it would alone, never 500.
    test('the same unfavorite, unfollow and comment delete sent twice at once: 200 twice, or a delete and a 404', async () => {
      const conduit = await conduitOn(db, driver, implementation)
      try {
        const me = await register(conduit.apiUrl, 'twice')
        const other = await register(conduit.apiUrl, 'followed')
        const slug = await createArticle(me, 'Twice')
        for (let k = 0; k < 3; k++) {
          await me.send('POST', `/articles/${slug}/favorite`)
          const unfavorites = await Promise.all([
            me.send('DELETE', `/articles/${slug}/favorite`),
            me.send('DELETE', `/articles/${slug}/favorite`),
          ])
          expect(unfavorites.map((r) => r.status)).toEqual([200, 200])
          expect(unfavorites.map((r) => r.body.article.favorited)).toEqual([false, false])
          await me.send('POST', `/profiles/${other.username}/follow`)
          const unfollows = await Promise.all([
            me.send('DELETE', `/profiles/${other.username}/follow`),
            me.send('DELETE', `/profiles/${other.username}/follow`),
          ])
          expect(unfollows.map((r) => r.status)).toEqual([200, 200])
          const comment = await me.send('POST', `/articles/${slug}/comments`, { comment: { body: 'once' } })
          const id = comment.body.comment.id
          const deletes = await Promise.all([
            me.send('DELETE', `/articles/${slug}/comments/${id}`),
            me.send('DELETE', `/articles/${slug}/comments/${id}`),
          ])
          const statuses = deletes.map((r) => r.status).sort()
          expect(statuses[1], `statuses ${statuses.join('+')}`).toBeLessThan(500)
          expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(1)
        }
      } finally {
        await conduit.close()
      }
    })
  },
)
