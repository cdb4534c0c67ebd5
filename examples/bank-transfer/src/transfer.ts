import { type ErrorCode, type FlushReport, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import type { UnitOfWorkFactory } from '@pipeflush/example-support'
import type { TypedEntityManager } from '@pipeflush/kysely'
import { amount, cents } from './money.ts'
import type { DB } from './schema.ts'

/** Move `amount` (a decimal string) from account `from` to account `to`. */
export interface TransferRequest {
  readonly from: string
  readonly to: string
  readonly amount: string
}

/** How a transfer ended: committed, or refused with a stable code (nothing written). */
export type TransferOutcome =
  | { readonly ok: true; readonly attempts: number; readonly report: FlushReport }
  | {
      readonly ok: false
      readonly attempts: number
      readonly code: ErrorCode | 'INSUFFICIENT_FUNDS' | 'DEADLOCK_DETECTED'
      readonly message: string
    }

/** The transfer was refused before anything was sent: the source account has too little. */
export class InsufficientFunds extends Error {
  override readonly name = 'InsufficientFunds'
}

/**
 * The work of one transfer in a unit of work: read both accounts (one prepared Kysely query), update
 * both balances and add a ledger row. The flush sends the two updates as one batched update, checked
 * against each account's `version`, and the ledger insert: one round trip in `burst` mode.
 *
 * @example
 * await factory.run((em) => transferWork(em, { from: '42', to: '314', amount: '100.00' }))
 */
export async function transferWork(em: TypedEntityManager<DB>, t: TransferRequest): Promise<void> {
  const accounts = await em.load(em.db.selectFrom('account').selectAll().where('id', 'in', [t.from, t.to]))
  const source = accounts.find((a) => a.id === t.from)
  const target = accounts.find((a) => a.id === t.to)
  if (!source || !target) throw new Error(`no account ${source ? t.to : t.from}`)
  const value = cents(t.amount)
  if (cents(source.amount) < value)
    throw new InsufficientFunds(`account ${t.from} has ${source.amount}, not ${t.amount}`)
  source.amount = amount(cents(source.amount) - value)
  target.amount = amount(cents(target.amount) + value)
  em.create('ledger', { from_account: t.from, to_account: t.to, amount: t.amount, booked_at: new Date() })
}

/**
 * Runs one transfer on a fresh unit of work and reports how it ended. A transfer whose accounts
 * changed between its read and its flush fails with `OPTIMISTIC_LOCK` (nothing is written); with
 * `retries`, it is read and tried again that many times (after a random backoff, see `RunOptions`).
 *
 * @example
 * const outcome = await transfer(factory, { from: '42', to: '314', amount: '100.00' }, { retries: 3 })
 */
export async function transfer(
  factory: UnitOfWorkFactory<DB>,
  t: TransferRequest,
  options: { readonly retries?: number; readonly backoffMs?: number; readonly pipeline?: PipelineMode } = {},
): Promise<TransferOutcome> {
  let attempts = 0
  try {
    const run = await factory.run((em) => {
      attempts++
      return transferWork(em, t)
    }, options)
    return { ok: true, attempts: run.attempts, report: run.report }
  } catch (e) {
    if (e instanceof InsufficientFunds)
      return { ok: false, attempts, code: 'INSUFFICIENT_FUNDS', message: e.message }
    // Two transfers touching the same accounts may deadlock on the server (it rolls one back).
    if (isPipeflushError(e) && e.sqlState === '40P01')
      return { ok: false, attempts, code: 'DEADLOCK_DETECTED', message: e.message }
    if (isPipeflushError(e)) return { ok: false, attempts, code: e.code, message: e.message }
    throw e
  }
}
