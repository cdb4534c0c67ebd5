import { notFound, unprocessable } from '../http/api-error.ts'
import type { Reply, RequestContext } from './context.ts'
import { signedIn } from './signed-in.ts'
import { profileJson } from './views.ts'

/** `GET /profiles/:username` (auth optional). */
export async function getProfile(ctx: RequestContext): Promise<Reply> {
  const username = ctx.params['username']!
  const profile = await ctx.run(({ users }) => users.profile(username, ctx.auth?.userId))
  if (!profile) throw notFound('profile')
  return { status: 200, body: { profile: profileJson(profile) } }
}

/** `POST /profiles/:username/follow`: read the profile, follow, flush. */
export async function follow(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const username = ctx.params['username']!
  const profile = await ctx.run(async ({ users }) => {
    const found = await users.profile(username, auth.userId)
    if (!found) throw notFound('profile')
    if (found.user.id === auth.userId) throw unprocessable({ profile: ['cannot follow yourself'] })
    return users.follow(auth.userId, found)
  })
  return { status: 200, body: { profile: profileJson(profile) } }
}

/** `DELETE /profiles/:username/follow`: read the profile, unfollow, flush. */
export async function unfollow(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const username = ctx.params['username']!
  const profile = await ctx.run(async ({ users }) => {
    const found = await users.profile(username, auth.userId)
    if (!found) throw notFound('profile')
    return users.unfollow(auth.userId, found)
  })
  return { status: 200, body: { profile: profileJson(profile) } }
}
