import type { Passwords } from '../auth/passwords.ts'
import type { Auth, Tokens } from '../auth/tokens.ts'
import type { Params } from '../http/router.ts'
import type { Repositories } from '../repositories/types.ts'

/** What a handler gets: who asks, what they sent, and a unit of work to run. */
export interface RequestContext {
  /** The token's user, when the request carried a valid token. */
  readonly auth: Auth | undefined
  /** The path parameters (`slug`, `username`, `id`). */
  readonly params: Params
  /** The query string. */
  readonly query: URLSearchParams
  /** The parsed JSON body, or undefined when there was none. */
  readonly body: unknown
  /** Signs tokens for register and login. */
  readonly tokens: Tokens
  /** Hashes and checks passwords. */
  readonly passwords: Passwords
  /**
   * Runs `work` on the repositories of a new unit of work, committing its writes when it returns
   * (nothing when it throws): one per request.
   */
  run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>
}

/** A handler's answer: a status and a JSON body (none for 204). */
export interface Reply {
  readonly status: number
  readonly body?: unknown
}

/** A route's handler. */
export type Handler = (ctx: RequestContext) => Promise<Reply>
