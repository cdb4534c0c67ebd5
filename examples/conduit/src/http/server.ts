import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isPipeflushError } from '@pipeflush/core'
import type { Handler, Reply, RequestContext } from '../api/context.ts'
import { isStorable } from '../api/inputs.ts'
import { ROUTES } from '../api/routes.ts'
import type { Passwords } from '../auth/passwords.ts'
import type { Auth, Tokens } from '../auth/tokens.ts'
import type { RequestLog } from '../measure/request-log.ts'
import type { Store } from '../repositories/store.ts'
import { UniqueViolation } from '../repositories/unique-violation.ts'
import { ApiError, type ErrorFields, notFound, unauthorized, unprocessable } from './api-error.ts'
import { type Params, Router } from './router.ts'

/** Options of {@link startServer}. */
export interface ServerOptions {
  readonly store: Store
  readonly tokens: Tokens
  readonly passwords: Passwords
  /** Records each request's round trips (see `RequestLog`). */
  readonly log?: RequestLog | undefined
  /** Default: a free port. */
  readonly port?: number | undefined
}

/** A running Conduit API. */
export interface RunningServer {
  /** e.g. `http://127.0.0.1:41234` (the API is under `/api`). */
  readonly url: string
  /**
   * Stops taking connections and lets the requests in flight answer (their work commits or fails as
   * it would have, and the client gets that answer), then resolves; connections still open after
   * `graceMs` (default 30 s, a flush's own timeout) are closed. Idle keep-alive connections close at
   * once, and an answer given meanwhile closes its connection.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>
}

/** How long a close waits for the requests in flight by default: a flush's own timeout. */
const CLOSE_GRACE_MS = 30_000

const router = new Router<Handler>(ROUTES)

/** What each path parameter names, for a 404's body. */
const PARAM_RESOURCES: Readonly<Record<string, string>> = {
  slug: 'article',
  username: 'profile',
  id: 'comment',
}

/** The field a unique constraint guards, for the 422's body. */
const UNIQUE_FIELDS: Readonly<Record<string, string>> = {
  app_user_username_key: 'username',
  app_user_email_key: 'email',
  article_slug_key: 'slug',
}

/**
 * Serves the Conduit API with `node:http` on 127.0.0.1. Each request: its route found, its JSON body
 * read, its token checked (`Authorization: Token <jwt>`; an invalid token is a 401 on every route, a
 * missing one where the route requires it), then its handler, which runs one unit of work of `store`.
 *
 * @example
 * const server = await startServer({ store, tokens: new Tokens(), passwords: new Passwords() })
 * await fetch(`${server.url}/api/tags`)
 * await server.close()
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  let closing = false
  const server: Server = createServer((req, res) => {
    void handle(options, req, res, () => closing)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: ({ graceMs = CLOSE_GRACE_MS } = {}) =>
      new Promise<void>((resolve, reject) => {
        closing = true
        const late = setTimeout(() => server.closeAllConnections(), graceMs)
        server.close((e) => {
          clearTimeout(late)
          if (e) reject(e)
          else resolve()
        })
        server.closeIdleConnections()
      }),
  }
}

/** One request; `closing`: whether the server is closing (the answer then closes its connection). */
async function handle(
  options: ServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
  closing: () => boolean,
): Promise<void> {
  const method = req.method ?? 'GET'
  const trace = options.log?.begin(method, req.url ?? '/')
  let reply: Reply
  try {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const match = router.match(method, url.pathname)
    if (!match) throw notFound('route')
    trace?.routed(`${method} ${match.route.pattern}`)
    const body = await readJson(req)
    const ctx: RequestContext = {
      auth: await authOf(req, options.tokens),
      params: storedParams(match.params),
      query: url.searchParams,
      body,
      tokens: options.tokens,
      passwords: options.passwords,
      run: (work) => options.store.run(work, trace),
    }
    reply = await match.route.handler(ctx)
  } catch (e) {
    reply = errorReply(e)
  }
  const text = reply.body === undefined ? '' : JSON.stringify(reply.body)
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(closing() ? { connection: 'close' } : {}),
  })
  res.end(text, () => trace?.end(reply.status))
}

/**
 * A route's parameters as the handler reads them: a slug, username or id the database could not hold
 * (a NUL, a lone surrogate) names nothing stored, a 404 when the handler reads it. Read, not checked
 * up front: a handler that needs a signed-in user checks that first, so such a request without a token
 * is a 401, as any other request of it.
 *
 * @example
 * storedParams({ slug: 'a\u0000' }).slug // throws the 404 'article not found'
 */
function storedParams(params: Params): Params {
  let out = params
  for (const [name, value] of Object.entries(params)) {
    if (isStorable(value)) continue
    if (out === params) out = { ...params }
    Object.defineProperty(out, name, {
      enumerable: true,
      get: () => {
        throw notFound(PARAM_RESOURCES[name] ?? name)
      },
    })
  }
  return out
}

/** The token's auth; undefined without an Authorization header; a 401 for an invalid one. */
async function authOf(req: IncomingMessage, tokens: Tokens): Promise<Auth | undefined> {
  const header = req.headers.authorization
  if (header === undefined) return undefined
  const [scheme, token] = header.trim().split(/\s+/)
  if ((scheme !== 'Token' && scheme !== 'Bearer') || !token) {
    throw unauthorized('must be sent as "Authorization: Token <jwt>"')
  }
  const auth = await tokens.verify(token)
  if (!auth) throw unauthorized('is invalid or expired')
  return auth
}

function errorReply(e: unknown): Reply {
  if (e instanceof ApiError) return failure(e.status, e.errors)
  if (e instanceof UniqueViolation) {
    const field = UNIQUE_FIELDS[e.constraint] ?? 'body'
    return failure(422, unprocessable({ [field]: ['has already been taken'] }).errors)
  }
  if (e instanceof URIError) return failure(404, { route: ['not found'] })
  if (isUnstorable(e)) return failure(422, { body: ['holds a value that cannot be stored'] })
  console.error(e)
  return failure(500, { server: ['internal error'] })
}

/**
 * An error answer with the spec's body (`GenericErrorModel`): `errors.body` lists every message,
 * each after its field's name (`["email has already been taken"]`), and each field's own messages
 * are beside it (`errors.email`), as Conduit's front ends read them.
 */
function failure(status: number, fields: ErrorFields): Reply {
  const body = Object.entries(fields).flatMap(([field, messages]) => messages.map((m) => `${field} ${m}`))
  return { status, body: { errors: { ...fields, body } } }
}

/**
 * SQLSTATEs of a value the database cannot store whatever the request's other fields: a NUL or a
 * character of no encoding (22021, 22P05), a value too big for an index entry (54000).
 */
const UNSTORABLE = new Set(['22021', '22P05', '54000'])

/**
 * Whether `e` refused a value of the request the database cannot store, before it was sent (pipeflush's
 * `INVALID_VALUE`: a NUL, a lone surrogate) or by the server: the client's mistake, a 422.
 */
function isUnstorable(e: unknown): boolean {
  if (isPipeflushError(e, 'INVALID_VALUE')) return true
  const error = e as { sqlState?: unknown; code?: unknown } | null
  const state = error?.sqlState ?? error?.code
  return typeof state === 'string' && UNSTORABLE.has(state)
}

/** The request's JSON body; undefined when empty; a 422 when it is not JSON. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw unprocessable({ body: ['must be JSON'] })
  }
}
