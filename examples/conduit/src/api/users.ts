import { ApiError } from '../http/api-error.ts'
import type { Reply, RequestContext } from './context.ts'
import { credentials, registration, userUpdate } from './inputs.ts'
import { currentUser, signedIn } from './signed-in.ts'
import { userJson } from './views.ts'

/** `POST /users`: one write, no read (a taken username or email is the unique constraint's 422). */
export async function register(ctx: RequestContext): Promise<Reply> {
  const input = registration(ctx.body)
  const passwordHash = await ctx.passwords.hash(input.password)
  const user = await ctx.run(({ users }) =>
    users.register({ username: input.username, email: input.email, passwordHash }),
  )
  return { status: 201, body: { user: userJson(user, await ctx.tokens.sign(user.id)) } }
}

/** `POST /users/login`: the user by email, the password checked (401 when either is wrong). */
export async function login(ctx: RequestContext): Promise<Reply> {
  const input = credentials(ctx.body)
  const user = await ctx.run(({ users }) => users.byEmail(input.email))
  if (!user || !(await ctx.passwords.verify(input.password, user.password_hash))) {
    throw new ApiError(401, { 'email or password': ['is invalid'] })
  }
  return { status: 200, body: { user: userJson(user, await ctx.tokens.sign(user.id)) } }
}

/** `GET /user`. */
export async function current(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const user = await ctx.run(({ users }) => currentUser(users, auth))
  return { status: 200, body: { user: userJson(user, auth.token) } }
}

/** `PUT /user`: read, change, flush (a taken username or email is the unique constraint's 422). */
export async function update(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const { password, ...rest } = userUpdate(ctx.body)
  const passwordHash = password === undefined ? undefined : await ctx.passwords.hash(password)
  const user = await ctx.run(async ({ users }) =>
    users.update(await currentUser(users, auth), { ...rest, passwordHash }),
  )
  return { status: 200, body: { user: userJson(user, auth.token) } }
}
