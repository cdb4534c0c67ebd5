import { isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { bigint, pgTable, text } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

// A stored key a `bigint({ mode: 'number' })` column reads past 2^53 cannot find its row again: the
// read fails naming the stored row and the mode to use. It said "(new row)" and to pass the value as a
// bigint or a string, which the application does not give (found by an outside probe).
const db = useTestDatabase()

const big = pgTable('uk_big', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  t: text('t').notNull(),
})

beforeAll(async () => {
  await db.sql.unsafe(`
create table uk_big (id bigint primary key, t text not null);
insert into uk_big values (1, 'small'), (9007199254740993, 'large');
`)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a read of a key past 2^53 in number mode fails naming the stored row and the mode; a safe key reads', async () => {
    const client = db.client(driver, { max: 1 })
    const drizzle =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client.client as postgres.Sql, { schema: { big } })
        : drizzlePg(client.client as pg.Pool, { schema: { big } })
    try {
      const factory = await createEntityManagerFactory({ db: drizzle })
      const [small] = await factory.fork().find(big, { t: 'small' })
      expect(small?.id).toBe(1)
      const error = await factory
        .fork()
        .find(big, { t: 'large' })
        .catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_VALUE')).toBe(true)
      const message = (error as PipeflushError).message
      expect(message).toContain('A stored big row')
      expect(message).toContain("bigint({ mode: 'bigint' })")
      expect(message).not.toContain('new row')
      expect((error as PipeflushError).column).toBe('id')
    } finally {
      await client.end()
    }
  })
})
