import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// A role granted INSERT and not SELECT on a table (an audit log, an outbox): reading back what the
// server filled (`returning`) needs SELECT, and every insert into it failed with "permission denied"
// where the same INSERT in psql worked (found by an outside probe). Such a table reads nothing back
// now: the catalog says which.
const db = useTestDatabase()
const role = 'io_writer'

beforeAll(async () => {
  await db.sql.unsafe(`
    create role ${role};
    create table io_audit (id serial primary key, msg text not null, at timestamptz not null default now());
    create table io_note (id serial primary key, msg text not null, at timestamptz not null default now());
    grant insert on io_audit to ${role};
    grant select, insert on io_note to ${role};
    grant usage on sequence io_audit_id_seq, io_note_id_seq to ${role};
    create table io_drop (id serial primary key, msg text not null, at timestamptz not null default now());
    alter table io_drop enable row level security;
    create policy io_drop_in on io_drop for insert with check (true);
    create policy io_drop_out on io_drop for select using (false);
    grant select, insert on io_drop to ${role};
    grant usage on sequence io_drop_id_seq to ${role};
  `)
})

afterAll(async () => {
  await db.sql
    .unsafe(`drop table io_audit, io_note, io_drop; drop owned by ${role}; drop role ${role}`)
    .catch(() => {})
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([true, undefined, { io_audit: true }] as const)(
    'serverValues %j: inserts into a table the role may only insert into are written, reading nothing back; a readable table beside it reads its defaults',
    async (serverValues) => {
      const { client } = db.client(driver, {
        max: 1,
        postgresJs: { connection: { role } },
        pg: { options: `-c role=${role}` },
      })
      const root = await EntityManager.connect(client, serverValues === undefined ? {} : { serverValues })
      expect(root.schema.tables.get('io_audit')?.selectDenied).toBe(true)
      expect(root.schema.tables.get('io_note')?.selectDenied).toBeUndefined()
      const em = root.fork()
      const audits = ['a', 'b', 'c'].map((msg) => em.create('io_audit', { msg }))
      const note = em.create('io_note', { msg: 'n' })
      const report = await em.flush()
      expect(report.inserted).toBe(4)
      expect(report.roundTrips).toBe(1)
      expect(audits.map((a) => em.stateOf(a))).toEqual(['managed', 'managed', 'managed'])
      expect(note['at']).toBeInstanceOf(Date)
      const stored = await db.sql.unsafe<{ id: number; msg: string }[]>(
        'select id, msg from io_audit order by id desc limit 3',
      )
      expect(stored.map((r) => [r.id, r.msg]).reverse()).toEqual(audits.map((a) => [a['id'], a['msg']]))
    },
  )

  test('a SELECT policy hiding the new row refuses an insert reading back what the server fills, and says why; serverValues off for the table writes it', async () => {
    await db.sql.unsafe('truncate io_drop')
    const { client } = db.client(driver, {
      max: 1,
      postgresJs: { connection: { role } },
      pg: { options: `-c role=${role}` },
    })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    const dropped = em.create('io_drop', { msg: 'in' })
    const refused = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(refused, 'STATEMENT_FAILED') && refused.sqlState).toBe('42501')
    expect((refused as Error).message).toMatch(
      /row-level security policy .*may insert the row but not see it: the insert reads back the values the server fills.*turn serverValues off for the table/,
    )
    expect(em.stateOf(dropped)).toBe('new')
    const quiet = (await EntityManager.connect(client, { serverValues: { io_drop: false } })).fork()
    quiet.create('io_drop', { msg: 'in' })
    expect((await quiet.flush()).inserted).toBe(1)
    expect(await db.sql.unsafe('select msg from io_drop')).toEqual([{ msg: 'in' }])
  })
})
