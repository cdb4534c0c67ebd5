import { EntityManager, isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Error messages and stacks go to logs and error trackers: by default they show no value the
// application wrote (the server's DETAIL, a value the server quotes, a value pipeflush refused);
// each stays on the error. `errorValues: true` puts them in the message.
const db = useTestDatabase()
const CARD = '4111 1111 1111 1111'
const IP = 'host-4111-1111'

beforeAll(async () => {
  await db.sql.unsafe(`
    create table card (id bigserial primary key, number text not null unique, ip inet, amount int4, r int4range);
    insert into card (number) values ('${CARD}');
  `)
})

/** What an error tells in its message and stack. */
const text = (e: unknown) => `${(e as Error).message}\n${(e as Error).stack}`

describe.each(TEST_DRIVERS)('%s', (driver) => {
  for (const mode of ['burst', 'off'] as const) {
    test(`${mode}: a unique violation, a value the server refuses, a value pipeflush refuses, a read: no value in message or stack`, async () => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const dup = root.fork()
      dup.create('card', { number: CARD })
      const unique = (await dup.flush().catch((e: unknown) => e)) as PipeflushError
      expect(unique.code).toBe('CONSTRAINT_VIOLATION')
      expect(unique.constraint).toBe('card_number_key')
      expect(text(unique)).not.toContain('4111')
      expect(unique.detail).toContain(CARD)

      const badIp = root.fork()
      badIp.create('card', { number: 'x', ip: IP })
      const refused = (await badIp.flush().catch((e: unknown) => e)) as PipeflushError
      expect(refused).toMatchObject({ code: 'STATEMENT_FAILED', sqlState: '22P02' })
      expect(refused.message).toContain('invalid input syntax for type inet: "(a value)"')
      expect(text(refused)).not.toContain('4111')

      const badAmount = root.fork()
      badAmount.create('card', { number: 'y', amount: CARD })
      const invalid = (await badAmount.flush().catch((e: unknown) => e)) as PipeflushError
      expect(invalid.code).toBe('INVALID_VALUE')
      expect(text(invalid)).not.toContain('4111')
      expect(invalid.value).toBe(CARD)

      const read = await root
        .fork()
        .find('card', { ip: IP })
        .catch((e: unknown) => e)
      expect(isPipeflushError(read, 'STATEMENT_FAILED')).toBe(true)
      expect(text(read)).not.toContain('4111')
    })
  }

  // The server quotes a value as it is, quotes, backslashes and line breaks unescaped: a value that
  // holds a double quote is hidden whole all the same.
  const QUOTED = ['card "4111-1111-1111-1111" exp', 'secret"4111-ABC"x', 'a\\"4111\\', 'line\n"4111"\nbreak']
  test.each(QUOTED)(
    'a value holding quotes, backslashes or line breaks: %j is not in a message',
    async (value) => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client)
      const number = `${value} ${driver}`
      const first = root.fork()
      first.create('card', { number })
      await first.flush()
      const dup = root.fork()
      dup.create('card', { number })
      const unique = (await dup.flush().catch((e: unknown) => e)) as PipeflushError
      expect(unique.code).toBe('CONSTRAINT_VIOLATION')
      expect(text(unique)).not.toContain('4111')
      expect(unique.detail).toContain(number)

      for (const row of [{ ip: value }, { r: value }]) {
        const em = root.fork()
        em.create('card', { number: 'q', ...row })
        const refused = (await em.flush().catch((e: unknown) => e)) as PipeflushError
        expect(refused).toMatchObject({ code: 'STATEMENT_FAILED', sqlState: '22P02' })
        expect(refused.message).toMatch(/: "\(a value\)"\. Nothing was committed\.$/)
        expect(text(refused)).not.toContain('4111')
      }

      const badAmount = root.fork()
      badAmount.create('card', { number: 'y', amount: value })
      const invalid = (await badAmount.flush().catch((e: unknown) => e)) as PipeflushError
      expect(invalid.code).toBe('INVALID_VALUE')
      expect(text(invalid)).not.toContain('4111')
      expect(invalid.value).toBe(value)

      const read = await root
        .fork()
        .find('card', { r: value })
        .catch((e: unknown) => e)
      expect(isPipeflushError(read, 'STATEMENT_FAILED')).toBe(true)
      expect(text(read)).not.toContain('4111')
    },
  )

  test('errorValues: true puts the values in messages, for development', async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client, { errorValues: true })
    const dup = root.fork()
    dup.create('card', { number: CARD })
    const unique = (await dup.flush().catch((e: unknown) => e)) as PipeflushError
    expect(unique.message).toContain(`detail: Key (number)=(${CARD}) already exists.`)
    const badIp = root.fork()
    badIp.create('card', { number: 'x', ip: IP })
    const refused = (await badIp.flush().catch((e: unknown) => e)) as PipeflushError
    expect(refused.message).toContain(`server: invalid input syntax for type inet: "${IP}"`)
    expect(() => root.fork().create('card', { number: 'z', amount: 1.5 })).not.toThrow() // checked at the flush
    const invalid = root.fork()
    invalid.create('card', { number: 'z', amount: CARD })
    await expect(invalid.flush()).rejects.toThrow(`[value: "${CARD}"]`)
  })
})
