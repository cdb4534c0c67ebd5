import { randomBytes } from 'node:crypto'

/** An answer of the API: its status and parsed JSON body (undefined when empty). */
export interface Answer {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read the spec's bodies by path
  readonly body: any
}

/** A signed-in user of the API, as the tests drive it. */
export interface Client {
  readonly username: string
  readonly email: string
  readonly token: string
  /** A request with this user's token. */
  send(method: string, path: string, body?: unknown): Promise<Answer>
}

/**
 * Sends one request to the API at `apiUrl` (`.../api`), with `Authorization: Token <token>` when a
 * token is given.
 *
 * @example
 * const { status, body } = await send(apiUrl, 'GET', '/tags')
 */
export async function send(
  apiUrl: string,
  method: string,
  path: string,
  options: { token?: string | undefined; body?: unknown; rawBody?: string; authorization?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const authorization = options.authorization ?? (options.token ? `Token ${options.token}` : undefined)
  if (authorization) headers['authorization'] = authorization
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

/** A name no other test run uses, e.g. `ada_3f9c1b`. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(3).toString('hex')}`
}

/**
 * Registers a new user (`POST /users`) and returns a client signed in as them.
 *
 * @example
 * const ada = await register(apiUrl, 'ada')
 * await ada.send('POST', '/articles', { article: { title: 'T', description: 'D', body: 'B' } })
 */
export async function register(apiUrl: string, prefix: string): Promise<Client> {
  const username = uniqueName(prefix)
  const email = `${username}@example.com`
  const answer = await send(apiUrl, 'POST', '/users', {
    body: { user: { username, email, password: 'secret-1' } },
  })
  if (answer.status !== 201)
    throw new Error(`register ${username}: ${answer.status} ${JSON.stringify(answer.body)}`)
  const token = answer.body.user.token as string
  return {
    username,
    email,
    token,
    send: (method, path, body) => send(apiUrl, method, path, { token, body }),
  }
}

/** Creates an article as `client` and returns its slug. */
export async function createArticle(
  client: Client,
  title: string,
  tagList: readonly string[] = [],
): Promise<string> {
  const answer = await client.send('POST', '/articles', {
    article: { title, description: `About ${title}`, body: `The body of ${title}.`, tagList },
  })
  if (answer.status !== 201)
    throw new Error(`create ${title}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body.article.slug as string
}
