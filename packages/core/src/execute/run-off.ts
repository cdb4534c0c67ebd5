import { classifyStatementError } from './classify-error.ts'
import { awaitedTransaction, runBefore, withReserved } from './reserved.ts'
import { inlineParams } from './simple-sql.ts'
import { statementQuery } from './statement-query.ts'
import type { ExecuteContext, ExecuteResult } from './types.ts'
import { isWarm, markWarm } from './warm-statements.ts'

/**
 * `off`: the way ORMs flush today, the baseline: BEGIN, every statement, COMMIT, each awaited.
 * 2 + statements round trips (+1 for each statement not yet prepared on the connection). Without
 * prepared statements (`prepare: false`) each statement is a simple-protocol query: never cold.
 */
export function runOff(ctx: ExecuteContext): Promise<ExecuteResult> {
  return withReserved(ctx, async (r) => {
    let roundTrips = await runBefore(ctx, r)
    let cold = false
    const plan = ctx.makePlan()
    const beginCommit = await awaitedTransaction(r, ctx, async () => {
      for (const s of plan.waves.flat()) {
        if (!ctx.prepare) {
          try {
            await r.sql.unsafe(inlineParams(s))
          } catch (e) {
            throw classifyStatementError(e, s, ctx.flushId)
          }
          roundTrips += 1
          continue
        }
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
