import { type FlushReport, isPipeflushError } from '@pipeflush/core'
import { seededRandom, type UnitOfWorkFactory } from '@pipeflush/example-support'
import { amount, cents } from './money.ts'
import { ACCOUNTS, type DB } from './schema.ts'
import { type TransferOutcome, type TransferRequest, transfer, transferWork } from './transfer.ts'

type Factory = UnitOfWorkFactory<DB>

/**
 * Opens the scenario's accounts with `balance` each, in one flush.
 *
 * @example
 * await openAccounts(factory, '1000.00')
 */
export async function openAccounts(factory: Factory, balance: string): Promise<FlushReport> {
  const { report } = await factory.run((em) => {
    for (const a of ACCOUNTS) em.create('account', { id: a.id, holder: a.holder, amount: balance })
  })
  return report
}

/** The sum of every balance, in cents, and the number of ledger rows. */
export async function books(factory: Factory): Promise<{ total: bigint; ledgerRows: number }> {
  const db = factory.db
  const [sum, ledger] = await Promise.all([
    db
      .selectFrom('account')
      .select((eb) => eb.cast<string>(eb.fn.sum('amount'), 'text').as('total'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('ledger')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ])
  return { total: cents(sum.total), ledgerRows: Number(ledger.n) }
}

/** What the stale-transfer demonstration saw. */
export interface StaleDemo {
  /** How the transfer that read first and flushed last ended. */
  readonly stale: { readonly code: string; readonly message: string } | { readonly code: 'COMMITTED' }
  /** The transfer that committed in between. */
  readonly other: TransferOutcome
  /** The stale transfer run again with retries. */
  readonly retried: TransferOutcome
}

/**
 * A transfer reads accounts 42 and 314 and prepares its changes; before it flushes, another transfer
 * from 42 commits. The first one's flush then fails with `OPTIMISTIC_LOCK` (42's version moved) and
 * writes nothing; run again with retries, it rereads and commits.
 */
export async function staleTransfer(factory: Factory): Promise<StaleDemo> {
  const request: TransferRequest = { from: '42', to: '314', amount: '100.00' }
  const slow = factory.em()
  await transferWork(slow, request)
  const other = await transfer(factory, { from: '42', to: '1000', amount: '5.00' })
  let stale: StaleDemo['stale']
  try {
    await slow.flush()
    stale = { code: 'COMMITTED' }
  } catch (e) {
    if (!isPipeflushError(e)) throw e
    stale = { code: e.code, message: e.message }
  }
  const retried = await transfer(factory, request, { retries: 3 })
  return { stale, other, retried }
}

/** What a burst of concurrent transfers did. */
export interface ConcurrentRun {
  readonly attempted: number
  readonly succeeded: number
  /** Failed transfers by error code. */
  readonly failed: Readonly<Record<string, number>>
  /** The first failure's message, by error code. */
  readonly firstMessages: Readonly<Record<string, string>>
  /** Transfers that committed after at least one optimistic-lock retry. */
  readonly retried: number
  readonly totalBefore: bigint
  readonly totalAfter: bigint
  readonly ledgerRowsAdded: number
  readonly ms: number
  /**
   * Median flush round trips and time of the committed transfers, from their reports (round trips
   * measured by pipeflush on each flush's connection: concurrent flushes cannot be told apart on the
   * pool's own counter).
   */
  readonly medianFlush: { readonly roundTrips: number; readonly ms: number }
}

/**
 * Starts `count` transfers at once between random accounts (seeded: the same transfers every run),
 * on the factory's pool, and checks the books: the total balance must not change, and there must be
 * one ledger row per committed transfer.
 *
 * @example
 * const run = await concurrentTransfers(factory, 60, { retries: 0 })
 */
export async function concurrentTransfers(
  factory: Factory,
  count: number,
  options: { readonly retries: number; readonly backoffMs?: number; readonly seed?: number },
): Promise<ConcurrentRun> {
  const next = seededRandom(options.seed ?? 7)
  const random = () => next() / 4294967296
  const requests = Array.from({ length: count }, () => {
    const from = ACCOUNTS[Math.floor(random() * ACCOUNTS.length)]!
    let to = ACCOUNTS[Math.floor(random() * ACCOUNTS.length)]!
    if (to === from) to = ACCOUNTS[(ACCOUNTS.indexOf(from) + 1) % ACCOUNTS.length]!
    return { from: from.id, to: to.id, amount: amount(BigInt(100 + Math.floor(random() * 4900))) }
  })
  const before = await books(factory)
  const started = performance.now()
  const outcomes = await Promise.all(
    requests.map((r) =>
      transfer(factory, r, { retries: options.retries, backoffMs: options.backoffMs ?? 5 }),
    ),
  )
  const ms = performance.now() - started
  const after = await books(factory)
  const failed: Record<string, number> = {}
  const firstMessages: Record<string, string> = {}
  for (const o of outcomes) {
    if (o.ok) continue
    failed[o.code] = (failed[o.code] ?? 0) + 1
    firstMessages[o.code] ??= o.message
  }
  const committed = outcomes.flatMap((o) => (o.ok ? [o] : []))
  return {
    attempted: count,
    succeeded: committed.length,
    failed,
    firstMessages,
    retried: committed.filter((o) => o.attempts > 1).length,
    totalBefore: before.total,
    totalAfter: after.total,
    ledgerRowsAdded: after.ledgerRows - before.ledgerRows,
    ms,
    medianFlush: {
      roundTrips: median(committed.map((o) => o.report.roundTrips)),
      ms: median(committed.map((o) => o.report.durationMs)),
    },
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}
