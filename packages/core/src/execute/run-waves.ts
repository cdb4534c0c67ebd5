import { firstCause } from './classify-error.ts'
import { awaitedTransaction, withReserved } from './reserved.ts'
import { statementQuery } from './statement-query.ts'
import type { ExecuteContext, ExecuteResult } from './types.ts'
import { isWarm, markWarm } from './warm-statements.ts'

/**
 * `waves`: BEGIN awaited, then each wave's statements together (pipelined) and awaited, then COMMIT:
 * 2 + waves round trips when the statements are prepared on the connection (+1 for each that is not).
 */
export function runWaves(ctx: ExecuteContext): Promise<ExecuteResult> {
  return withReserved(ctx, async (r) => {
    let roundTrips = ctx.before ? await ctx.before(r.sql) : 0
    let cold = false
    const plan = ctx.makePlan()
    const beginCommit = await awaitedTransaction(r, ctx.flushId, async () => {
      for (const wave of plan.waves) {
        const coldCount = wave.filter((s) => !isWarm(r.connection, s.sql)).length
        if (coldCount > 0) cold = true
        const results = await Promise.allSettled(wave.map((s) => statementQuery(r.sql, s)))
        const error = firstCause(results, wave, ctx.flushId)
        if (error) throw error
        markWarm(
          r.connection,
          wave.map((s) => s.sql),
        )
        roundTrips += 1 + coldCount
      }
    })
    roundTrips += beginCommit
    return { roundTrips, cold, plan }
  })
}
