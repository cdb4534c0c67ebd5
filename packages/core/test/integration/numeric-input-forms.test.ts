import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// numeric text as PostgreSQL reads it: white space around it, no digit on one side of the point. It
// is stored as the server stores the same text, and flushed again writes nothing. Such text was
// INVALID_VALUE (" 12.5 ", a string Drizzle and the drivers store; found by an outside probe).
const db = useTestDatabase()
const FORMS = [' 12.5 ', '\t-1\n', '.5', '5.', '-.5e1', '  7.125e1']

beforeAll(async () => {
  await db.sql.unsafe('create table num_forms (id serial primary key, n numeric, p numeric(10, 2))')
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('numeric text in the forms PostgreSQL reads: stored as the server stores it, no change after', async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    for (const form of FORMS) {
      const em = root.fork()
      const entity = em.create('num_forms', { n: form, p: form })
      await em.flush()
      const [stored] = await db.sql.unsafe<{ n: string; p: string; wn: string; wp: string }[]>(
        `select n::text, p::text, $1::numeric::text as wn, $1::numeric(10, 2)::text as wp from num_forms where id = $2`,
        [form, Number(entity['id'])],
      )
      expect({ n: stored!.n, p: stored!.p }, JSON.stringify(form)).toEqual({ n: stored!.wn, p: stored!.wp })
      const report = await em.flush()
      expect(report.updated, JSON.stringify(form)).toBe(0)
      const again = root.fork()
      const loaded = await again.load('num_forms', Number(entity['id']))
      loaded['n'] = form // the same value, spelled as given
      expect((await again.flush()).updated, JSON.stringify(form)).toBe(0)
    }
  })
})
