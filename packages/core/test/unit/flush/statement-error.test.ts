import { describe, expect, test } from 'vitest'
import type { DriverError } from '../../../src/drivers/driver.ts'
import { firstRejection, statementError } from '../../../src/flush/outcome.ts'

const server = (sqlState: string, message: string, extra: Partial<DriverError> = {}): DriverError => ({
  kind: 'server',
  message,
  sqlState,
  cause: new Error(message),
  ...extra,
})

describe('statementError', () => {
  test('25006 on a standby is READ_ONLY_SERVER, naming the statement, nothing committed', () => {
    const e = statementError(
      server('25006', 'cannot execute INSERT in a read-only transaction'),
      undefined,
      'f1',
    )
    expect(e.code).toBe('READ_ONLY_SERVER')
    expect(e.sqlState).toBe('25006')
    expect(e.flushId).toBe('f1')
    expect(e.message).toMatch(/only reads.*Nothing was committed/)
  })

  test('a unique violation stays CONSTRAINT_VIOLATION and another error STATEMENT_FAILED', () => {
    const unique = server('23505', 'duplicate key value violates unique constraint "t_pkey"', {
      constraint: 't_pkey',
    })
    expect(statementError(unique, undefined, 'f1').code).toBe('CONSTRAINT_VIOLATION')
    expect(statementError(server('42P01', 'relation "x" does not exist'), undefined, 'f1').code).toBe(
      'STATEMENT_FAILED',
    )
  })

  test('in a pipelined transaction to a standby, the 25006 explains it, not the 25P02 after it', () => {
    const results: PromiseSettledResult<never>[] = [
      { status: 'fulfilled', value: undefined as never },
      { status: 'rejected', reason: server('25006', 'cannot execute INSERT in a read-only transaction') },
      { status: 'rejected', reason: server('25P02', 'current transaction is aborted') },
    ]
    expect(firstRejection(results, [undefined, undefined, undefined], 'f2')?.code).toBe('READ_ONLY_SERVER')
  })
})
