import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { Tokens } from '../src/auth/tokens.ts'
import { createSchema } from '../src/schema.ts'
import { createArticle, register, send } from './support/api-client.ts'
import { conduitOn, configurations, snapshot, TEST_SECRET } from './support/conduit-under-test.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
})

describe.each(configurations(TEST_DRIVERS))(
  '$driver, $implementation: error answers',
  ({ driver, implementation }) => {
    test('each error status of the spec, with its error body, and nothing committed on one', async () => {
      const conduit = await conduitOn(db, driver, implementation)
      const api = conduit.apiUrl
      try {
        const alice = await register(api, 'alice')
        const bob = await register(api, 'bob')
        const slug = await createArticle(alice, 'Alice writes', ['errors'])
        const other = await createArticle(bob, 'Bob writes')
        const comment = await alice.send('POST', `/articles/${slug}/comments`, { comment: { body: 'Mine.' } })
        const bobs = await bob.send('POST', `/articles/${other}/comments`, { comment: { body: "Bob's." } })
        const commentId = comment.body.comment.id as number
        const before = await snapshot(db)

        const status = async (
          // biome-ignore lint/suspicious/noExplicitAny: the body is read by path
          answer: Promise<{ status: number; body: any }>,
          expected: number,
          errors?: object,
        ) => {
          const { status, body } = await answer
          expect(status).toBe(expected)
          // The spec's GenericErrorModel: every message in errors.body, each field's beside it.
          expect(body).toMatchObject({ errors: { body: expect.any(Array) } })
          for (const m of body.errors.body) expect(typeof m).toBe('string')
          if (errors) {
            const messages = Object.entries(errors).flatMap(([field, list]: [string, string[]]) =>
              list.map((m) => `${field} ${m}`),
            )
            expect(body).toEqual({ errors: { ...errors, body: messages } })
          }
        }
        const anonymous = (method: string, path: string, body?: unknown) => send(api, method, path, { body })
        const withAuthorization = (authorization: string, method = 'GET', path = '/user') =>
          send(api, method, path, { authorization })

        // 401: no token where one is required, an invalid token anywhere, wrong credentials.
        for (const [method, path] of [
          ['GET', '/user'],
          ['PUT', '/user'],
          ['GET', '/articles/feed'],
          ['POST', '/articles'],
          ['PUT', `/articles/${slug}`],
          ['DELETE', `/articles/${slug}`],
          ['POST', `/articles/${slug}/favorite`],
          ['DELETE', `/articles/${slug}/favorite`],
          ['POST', `/articles/${slug}/comments`],
          ['DELETE', `/articles/${slug}/comments/${commentId}`],
          ['POST', `/profiles/${bob.username}/follow`],
          ['DELETE', `/profiles/${bob.username}/follow`],
        ] as const) {
          await status(
            anonymous(method, path, method === 'GET' ? undefined : { article: { body: 'x' } }),
            401,
          )
        }
        const foreign = await new Tokens(new TextEncoder().encode('another secret')).sign(1)
        const nobody = await new Tokens(TEST_SECRET).sign(2 ** 31 - 1)
        await status(withAuthorization('Token not.a.jwt'), 401, { token: ['is invalid or expired'] })
        await status(withAuthorization(`Token ${foreign}`), 401, { token: ['is invalid or expired'] })
        await status(withAuthorization(`Token ${nobody}`), 401, {
          token: ["names a user that doesn't exist"],
        })
        await status(withAuthorization(`Basic ${alice.token}`), 401)
        await status(withAuthorization(`Token ${foreign}`, 'GET', '/articles'), 401) // optional auth, invalid token
        await status(withAuthorization(`Token ${foreign}`, 'POST', `/articles/${slug}/favorite`), 401)
        await status(
          anonymous('POST', '/users/login', { user: { email: alice.email, password: 'wrong' } }),
          401,
          { 'email or password': ['is invalid'] },
        )
        await status(
          anonymous('POST', '/users/login', { user: { email: 'nobody@example.com', password: 'secret-1' } }),
          401,
        )

        // 403: another user's article or comment.
        await status(bob.send('PUT', `/articles/${slug}`, { article: { body: 'Taken over.' } }), 403, {
          article: ['belongs to another user'],
        })
        await status(bob.send('DELETE', `/articles/${slug}`), 403, { article: ['belongs to another user'] })
        await status(bob.send('DELETE', `/articles/${slug}/comments/${commentId}`), 403, {
          comment: ['belongs to another user'],
        })

        // 404: unknown slug, profile, comment, route.
        const article404 = { article: ['not found'] }
        await status(anonymous('GET', '/articles/no-such-slug'), 404, article404)
        await status(alice.send('PUT', '/articles/no-such-slug', { article: { body: 'x' } }), 404, article404)
        await status(alice.send('DELETE', '/articles/no-such-slug'), 404, article404)
        await status(alice.send('POST', '/articles/no-such-slug/favorite'), 404, article404)
        await status(alice.send('DELETE', '/articles/no-such-slug/favorite'), 404, article404)
        await status(anonymous('GET', '/articles/no-such-slug/comments'), 404, article404)
        await status(
          alice.send('POST', '/articles/no-such-slug/comments', { comment: { body: 'x' } }),
          404,
          article404,
        )
        await status(alice.send('DELETE', `/articles/no-such-slug/comments/${commentId}`), 404, article404)
        const profile404 = { profile: ['not found'] }
        await status(anonymous('GET', '/profiles/nobody-at-all'), 404, profile404)
        await status(alice.send('POST', '/profiles/nobody-at-all/follow'), 404, profile404)
        await status(alice.send('DELETE', '/profiles/nobody-at-all/follow'), 404, profile404)
        const comment404 = { comment: ['not found'] }
        await status(alice.send('DELETE', `/articles/${slug}/comments/2147483647`), 404, comment404)
        await status(alice.send('DELETE', `/articles/${slug}/comments/not-a-number`), 404, comment404)
        // Bob's comment exists, but on another article.
        await status(
          bob.send('DELETE', `/articles/${slug}/comments/${bobs.body.comment.id}`),
          404,
          comment404,
        )
        await status(anonymous('GET', '/nowhere'), 404, { route: ['not found'] })

        // 422: invalid bodies and query strings, a taken username or email.
        await status(anonymous('POST', '/users', {}), 422, { body: ['must be a JSON object with "user"'] })
        await status(anonymous('POST', '/users', { user: {} }), 422, {
          username: ["can't be blank"],
          email: ["can't be blank"],
          password: ["can't be blank"],
        })
        await status(send(api, 'POST', '/users', { rawBody: '{"user":' }), 422, { body: ['must be JSON'] })
        await status(
          anonymous('POST', '/users', { user: { username: 'x1', email: 'not-an-email', password: 'p' } }),
          422,
          {
            email: ['is invalid'],
          },
        )
        const taken = ['has already been taken']
        await status(
          anonymous('POST', '/users', {
            user: { username: alice.username, email: 'new@example.com', password: 'p' },
          }),
          422,
          { username: taken },
        )
        await status(
          anonymous('POST', '/users', {
            user: { username: 'someone-new', email: alice.email, password: 'p' },
          }),
          422,
          { email: taken },
        )
        await status(bob.send('PUT', '/user', { user: { username: alice.username } }), 422, {
          username: taken,
        })
        await status(bob.send('PUT', '/user', { user: { email: alice.email } }), 422, { email: taken })
        await status(bob.send('PUT', '/user', { user: {} }), 422, {
          user: ['must change at least one field'],
        })
        // A field given with the wrong type: that field's problem only (it did try to change one).
        await status(bob.send('PUT', '/user', { user: { image: 5 } }), 422, { image: ['must be a string'] })
        await status(bob.send('PUT', '/user', { user: { username: false } }), 422, {
          username: ['must be a string'],
        })
        await status(alice.send('PUT', `/articles/${slug}`, { article: { body: 7 } }), 422, {
          body: ['must be a string'],
        })
        await status(alice.send('POST', '/articles', { article: { description: 'd', body: 'b' } }), 422, {
          title: ["can't be blank"],
        })
        await status(
          alice.send('POST', '/articles', {
            article: { title: 't', description: 'd', body: 'b', tagList: 'x' },
          }),
          422,
          {
            tagList: ['must be a list of non-blank strings'],
          },
        )
        await status(alice.send('PUT', `/articles/${slug}`, { article: { title: ' ' } }), 422, {
          title: ["can't be blank"],
        })
        await status(alice.send('POST', `/articles/${slug}/comments`, { comment: { body: '' } }), 422, {
          body: ["can't be blank"],
        })
        await status(anonymous('GET', '/articles?limit=0'), 422, {
          limit: ['must be an integer from 1 to 100'],
        })
        await status(anonymous('GET', '/articles?offset=-1'), 422)
        await status(alice.send('GET', '/articles/feed?limit=abc'), 422)
        await status(alice.send('POST', `/profiles/${alice.username}/follow`), 422, {
          profile: ['cannot follow yourself'],
        })

        // Nothing of any of them was written.
        expect(await snapshot(db)).toEqual(before)
      } finally {
        await conduit.close()
      }
    })

    // Values the database cannot store (a NUL, a lone surrogate): the client's mistake, a 422, nothing
    // written (a 500, or on the Kysely implementation a lone surrogate written as U+FFFD).
    test('values the database cannot store: 422 in a body, 404 or an empty list in the URL, nothing written', async () => {
      const conduit = await conduitOn(db, driver, implementation)
      try {
        const carol = await register(conduit.apiUrl, 'carol')
        const before = await snapshot(db)
        const article = (fields: object) => ({
          article: { title: 'T', description: 'd', body: 'b', ...fields },
        })
        for (const body of [
          article({ title: 'a\u0000b' }),
          article({ body: 'a\ud800b' }),
          article({ tagList: ['t\u0000'] }),
        ]) {
          const answer = await carol.send('POST', '/articles', body)
          expect(answer.status, JSON.stringify(answer.body)).toBe(422)
        }
        // From the URL, such a value names nothing stored: a filter matches no article, a slug, a
        // username or a comment id no row (a 404 naming it, not a 422 about a body the GET has not).
        for (const filter of ['tag', 'author', 'favorited']) {
          const nul = await carol.send('GET', `/articles?${filter}=%00`)
          expect({ filter, status: nul.status, body: nul.body }).toEqual({
            filter,
            status: 200,
            body: { articles: [], articlesCount: 0 },
          })
        }
        for (const [path, what] of [
          ['/articles/a%00', 'article'],
          ['/articles/a%00/comments', 'article'],
          ['/profiles/c%00', 'profile'],
        ] as const) {
          const nul = await send(conduit.apiUrl, 'GET', path)
          expect({ path, status: nul.status, body: nul.body }).toEqual({
            path,
            status: 404,
            body: { errors: { [what]: ['not found'], body: [`${what} not found`] } },
          })
        }
        // A route that needs a signed-in user answers a request without a token 401 first, whatever
        // its URL names (the sign-in is checked before the URL's values); with a token, 404.
        for (const [method, path, what] of [
          ['PUT', '/articles/a%00', 'article'],
          ['DELETE', '/articles/a%00', 'article'],
          ['POST', '/articles/a%00/favorite', 'article'],
          ['POST', '/articles/a%00/comments', 'article'],
          ['DELETE', '/articles/a%00/comments/1', 'article'],
          ['POST', '/profiles/c%00/follow', 'profile'],
        ] as const) {
          const anonymous = await send(conduit.apiUrl, method, path)
          expect({ method, path, status: anonymous.status }).toEqual({ method, path, status: 401 })
          const signed = await carol.send(method, path)
          expect({ method, path, status: signed.status, body: signed.body }).toEqual({
            method,
            path,
            status: 404,
            body: { errors: { [what]: ['not found'], body: [`${what} not found`] } },
          })
        }
        expect(await snapshot(db)).toEqual(before)
      } finally {
        await conduit.close()
      }
    })
  },
)
