import type { Reply, RequestContext } from './context.ts'

/** `GET /tags`: the tags in use, by name. */
export async function listTags(ctx: RequestContext): Promise<Reply> {
  const tags = await ctx.run(({ tags }) => tags.names())
  return { status: 200, body: { tags } }
}
