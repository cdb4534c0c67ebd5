import type { Generated, Int8, Numeric } from '@pipeflush/kysely'

/**
 * The article's `account` table (`id bigint primary key, holder text, amount numeric(15,2)`) plus a
 * `version` column for optimistic locking, and a ledger row per transfer.
 */
export interface DB {
  account: { id: Int8; holder: string; amount: Numeric; version: Generated<number> }
  ledger: { id: Generated<Int8>; from_account: Int8; to_account: Int8; amount: Numeric; booked_at: Date }
}

const DDL = `
  create table account (
    id bigint primary key,
    holder text not null,
    amount numeric(15, 2) not null check (amount >= 0),
    version int not null default 1
  );
  create table ledger (
    id bigserial primary key,
    from_account bigint not null references account,
    to_account bigint not null references account,
    amount numeric(15, 2) not null check (amount > 0),
    booked_at timestamptz not null
  );
`

/** Runs one SQL text (setup only): `query` of a pool from `startExampleDatabase`, or `sql.unsafe`. */
export type RunSql = (text: string) => Promise<unknown>

/**
 * Creates the tables (in an empty database).
 *
 * @example
 * await createSchema(admin.query)
 */
export async function createSchema(run: RunSql): Promise<void> {
  await run(DDL)
}

/**
 * Empties both tables (the ledger's sequence goes on: pipeflush pools ids per client).
 *
 * @example
 * await resetData(admin.query)
 */
export async function resetData(run: RunSql): Promise<void> {
  await run('truncate ledger, account')
}

/** The accounts of the scenario: the article's 42 and 314, and eight more. */
export const ACCOUNTS: readonly { readonly id: string; readonly holder: string }[] = [
  { id: '42', holder: 'Arthur' },
  { id: '314', holder: 'Pi' },
  ...['Ada', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret'].map((holder, i) => ({
    id: String(1000 + i),
    holder,
  })),
]
