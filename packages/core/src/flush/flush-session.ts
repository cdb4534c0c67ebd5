import type { PipelinedStatement, SimpleResult, StatementResult } from '../drivers/driver.ts'
import { GuardedSession } from '../drivers/guarded-session.ts'

/**
 * A flush's session: a {@link GuardedSession} that also knows what the outcome rules need
 * (`outcome.ts`): whether the COMMIT (or a message that commits) was handed to the driver, after which
 * a lost answer leaves the outcome unknown, and whether the server rejected a statement, after which
 * nothing can have committed.
 */
export class FlushSession extends GuardedSession {
  /** The COMMIT (or a message that commits) was handed to the driver. */
  commitSent = false
  /** A statement of this flush's transaction got an error answer from the server. */
  serverRejected = false

  /** {@link GuardedSession.simple}; `commits` when the message holds the COMMIT or commits implicitly. */
  override simple(
    text: string,
    options: {
      readonly commits?: boolean
      readonly copies?: readonly Iterable<Buffer>[]
      readonly rowSets?: number
    } = {},
  ): Promise<SimpleResult> {
    const answer = super.simple(text, options) // sent by now, unless it threw
    if (options.commits) this.commitSent = true
    return answer
  }

  /** {@link GuardedSession.pipeline}; `commits` when the statements end with the COMMIT. */
  override pipeline(
    statements: readonly PipelinedStatement[],
    options: { readonly commits?: boolean } = {},
  ): Promise<PromiseSettledResult<StatementResult>[]> {
    const answer = super.pipeline(statements)
    if (options.commits) this.commitSent = true
    return answer
  }
}
