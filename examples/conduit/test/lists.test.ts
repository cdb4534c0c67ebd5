import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/schema.ts'
import { type Client, createArticle, register, send, uniqueName } from './support/api-client.ts'
import { conduitOn, configurations } from './support/conduit-under-test.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
})

/** The titles of a list answer's articles, and its count. */
function titles(answer: { status: number; body: { articles: { title: string }[]; articlesCount: number } }) {
  expect(answer.status).toBe(200)
  return { titles: answer.body.articles.map((a) => a.title), count: answer.body.articlesCount }
}

describe.each(configurations(TEST_DRIVERS))(
  '$driver, $implementation: lists',
  ({ driver, implementation }) => {
    test('limit and offset window the newest-first list; the feed holds exactly the followed authors’ articles', async () => {
      const conduit = await conduitOn(db, driver, implementation)
      const api = conduit.apiUrl
      try {
        const [w1, w2, w3, reader, loner] = await Promise.all(
          ['w1', 'w2', 'w3', 'reader', 'loner'].map((name) => register(api, name)),
        )
        const tag = uniqueName('page')
        // Written one after the other, so that each is newer than the one before.
        const order: [Client, string][] = [
          [w1!, 'a1'],
          [w3!, 'b1'],
          [w2!, 'c1'],
          [w1!, 'a2'],
          [w3!, 'b2'],
          [w2!, 'c2'],
          [w1!, 'a3'],
        ]
        const slugs = new Map<string, string>()
        for (const [writer, title] of order) slugs.set(title, await createArticle(writer, title, [tag]))
        const list = (query: string, who?: Client) =>
          who ? who.send('GET', `/articles${query}`) : send(api, 'GET', `/articles${query}`)

        // Newest first, windowed; the count is of every match, as a number.
        expect(titles(await list(`?tag=${tag}`))).toEqual({
          titles: ['a3', 'c2', 'b2', 'a2', 'c1', 'b1', 'a1'],
          count: 7,
        })
        expect(titles(await list(`?tag=${tag}&limit=3&offset=2`))).toEqual({
          titles: ['b2', 'a2', 'c1'],
          count: 7,
        })
        expect(titles(await list(`?tag=${tag}&limit=1`))).toEqual({ titles: ['a3'], count: 7 })
        expect(titles(await list(`?tag=${tag}&offset=6`))).toEqual({ titles: ['a1'], count: 7 })
        expect(titles(await list(`?tag=${tag}&offset=10`))).toEqual({ titles: [], count: 7 })
        expect(titles(await list(`?author=${w1!.username}`))).toEqual({
          titles: ['a3', 'a2', 'a1'],
          count: 3,
        })
        expect(titles(await list(`?author=${w1!.username}&limit=1&offset=1`))).toEqual({
          titles: ['a2'],
          count: 3,
        })
        expect(titles(await list(`?author=${w1!.username}&tag=${tag}&limit=2`))).toEqual({
          titles: ['a3', 'a2'],
          count: 3,
        })
        expect(titles(await list('?author=nobody-at-all'))).toEqual({ titles: [], count: 0 })

        // Favorites: the list by who favorited, newest first; the flag and count as the reader sees them.
        for (const title of ['b1', 'a2']) {
          expect((await reader!.send('POST', `/articles/${slugs.get(title)}/favorite`)).status).toBe(200)
        }
        expect(titles(await list(`?favorited=${reader!.username}`))).toEqual({
          titles: ['a2', 'b1'],
          count: 2,
        })
        const seen = (await list(`?tag=${tag}&limit=4&offset=2`, reader)).body.articles as {
          title: string
          favorited: boolean
          favoritesCount: number
        }[]
        expect(seen.map((a) => [a.title, a.favorited, a.favoritesCount])).toEqual([
          ['b2', false, 0],
          ['a2', true, 1],
          ['c1', false, 0],
          ['b1', true, 1],
        ])

        // The feed: exactly w1's and w2's articles, newest first, their authors followed.
        for (const writer of [w1!, w2!]) {
          const follow = await reader!.send('POST', `/profiles/${writer.username}/follow`)
          expect(follow.body.profile).toMatchObject({ username: writer.username, following: true })
        }
        const feed = await reader!.send('GET', '/articles/feed')
        expect(titles(feed)).toEqual({ titles: ['a3', 'c2', 'a2', 'c1', 'a1'], count: 5 })
        for (const a of feed.body.articles) expect(a.author.following).toBe(true)
        expect(feed.body.articles.map((a: { favorited: boolean }) => a.favorited)).toEqual([
          false,
          false,
          true,
          false,
          false,
        ])
        expect(titles(await reader!.send('GET', '/articles/feed?limit=2&offset=1'))).toEqual({
          titles: ['c2', 'a2'],
          count: 5,
        })
        // Unfollowing takes w2's articles out of it; a user who follows nobody has an empty feed.
        const unfollow = await reader!.send('DELETE', `/profiles/${w2!.username}/follow`)
        expect(unfollow.body.profile).toMatchObject({ username: w2!.username, following: false })
        expect(titles(await reader!.send('GET', '/articles/feed'))).toEqual({
          titles: ['a3', 'a2', 'a1'],
          count: 3,
        })
        expect(titles(await loner!.send('GET', '/articles/feed'))).toEqual({ titles: [], count: 0 })
        // Profiles as the reader and as nobody see them.
        expect((await reader!.send('GET', `/profiles/${w1!.username}`)).body.profile.following).toBe(true)
        expect((await reader!.send('GET', `/profiles/${w2!.username}`)).body.profile.following).toBe(false)
        expect((await send(api, 'GET', `/profiles/${w1!.username}`)).body.profile.following).toBe(false)
      } finally {
        await conduit.close()
      }
    })
  },
)
