import { firstCause } from './classify-error.ts'
import { awaitedTransaction, runBefore, withReserved } from './reserved.ts'
import { simpleBatch } from './simple-batch.ts'
import { statementQuery } from './statement-query.ts'
import type { ExecuteContext, ExecuteResult } from './types.ts'
import { isWarm, markWarm } from './warm-statements.ts'

/**
 * `waves`: BEGIN awaited, then each wave's statements together (pipelined) and awaited, then COMMIT:
 * 2 + waves round trips when the statements are prepared on the connection (+1 for each that is not).
 * Without prepared statements (`prepare: false`) each wave is one simple-protocol query: never cold.
 */
export function runWaves(ctx: ExecuteContext): Promise<ExecuteResult> {
  return withReserved(ctx, async (r) => {
    let roundTrips = await runBefore(ctx, r)
    let cold = false
    const plan = ctx.makePlan()
    const beginCommit = await awaitedTransaction(r, ctx, async () => {
      for (const wave of plan.waves) {
        if (!ctx.prepare) {
          await simpleBatch(r.sql, wave, ctx.flushId)
          roundTrips += 1
          continue
        }
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
