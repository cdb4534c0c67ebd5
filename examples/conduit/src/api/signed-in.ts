import type { Auth } from '../auth/tokens.ts'
import { unauthorized } from '../http/api-error.ts'
import type { UserRepository } from '../repositories/types.ts'
import type { RequestContext } from './context.ts'

/** The request's auth, or 401 when it carried no token (an invalid token was a 401 already). */
export function signedIn(ctx: RequestContext): Auth {
  if (!ctx.auth) throw unauthorized('is missing: send "Authorization: Token <jwt>"')
  return ctx.auth
}

/** The signed-in user's row, read by this unit of work; 401 when the token's user does not exist. */
export async function currentUser(users: UserRepository, auth: Auth) {
  const user = await users.byId(auth.userId)
  if (!user) throw unauthorized("names a user that doesn't exist")
  return user
}
