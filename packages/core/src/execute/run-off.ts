import { classifyStatementError } from './classify-error.ts'
import { awaitedTransaction, withReserved } from './reserved.ts'
import { statementQuery } from './statement-query.ts'
import type { ExecuteContext, ExecuteResult } from './types.ts'
import { isWarm, markWarm } from './warm-statements.ts'

/**
 * `off`: the way ORMs flush today, the baseline: BEGIN, every statement, COMMIT, each awaited.
 * 2 + statements round trips (+1 for each statement not yet prepared on the connection).
 */
export function runOff(ctx: ExecuteContext): Promise<ExecuteResult> {
  return withReserved(ctx, async (r) => {
    let roundTrips = ctx.before ? await ctx.before(r.sql) : 0
    let cold = false
    const plan = ctx.makePlan()
    const beginCommit = await awaitedTransaction(r, ctx.flushId, async () => {
      for (const s of plan.waves.flat()) {
        const warm = isWarm(r.connection, s.sql)
        if (!warm) cold = true
        try {
          await statementQuery(r.sql, s)
        } catch (e) {
          throw classifyStatementError(e, s, ctx.flushId)
        }
        markWarm(r.connection, [s.sql])
        roundTrips += warm ? 1 : 2
      }
    })
    roundTrips += beginCommit
    return { roundTrips, cold, plan }
  })
}
