import { randomBytes } from 'node:crypto'
import { defineSchema, EntityManager, type FlushReport, type PipelineMode } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'

// Keys pipeflush cannot draw from a sequence: a DEFAULT that is a function or an expression (filled
// by the server, read back in the insert's answer), uuid defaults (made client-side as v7), and keys
// whose sequence the role may not use (an identity: filled by the server; a serial: refused before
// sending). The entity manager connects as a role with privileges on the tables and on some sequences.
const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const drivers: readonly DriverName[] = TEST_DRIVERS
const role = `pf_keys_${randomBytes(4).toString('hex')}`

function schemaOf(driver: DriverName, mode: PipelineMode): string {
  return `k_${driver.replace(/[^a-z]/g, '')}_${mode}`
}

function ddl(schema: string): string {
  return `
create schema "${schema}";
set search_path = "${schema}";
create sequence ticket_seq;
create table ticket (code text primary key default 'T-' || lpad(nextval('ticket_seq')::text, 6, '0'),
  note text not null, created_at timestamptz default now() not null);
create table ticket_line (id bigserial primary key, ticket_code text not null references ticket, qty int not null);
create table account (id serial primary key, ext uuid not null unique default gen_random_uuid(),
  serial_no int generated always as identity unique, twice int generated always as (id * 2) stored unique);
create table account_ref (id serial primary key, account_ext uuid references account (ext),
  account_serial int references account (serial_no), account_twice int references account (twice));
create sequence snow_seq;
create function next_snowflake() returns bigint language sql volatile
  as $$ select 1000000000000 + nextval('"${schema}".snow_seq') * 7 $$;
create table snowflake (id bigint primary key default next_snowflake(), note text not null);
create table shift (store_id int not null, shift_no bigint not null default next_snowflake(), note text,
  primary key (store_id, shift_no));
create table reading (taken date not null, id bigint not null default next_snowflake(), value int not null,
  primary key (taken, id)) partition by range (taken);
create table reading_jan partition of reading for values from ('2024-01-01') to ('2024-02-01');
create table reading_feb partition of reading for values from ('2024-02-01') to ('2024-03-01');
create sequence stamped_seq;
create table stamped (id int primary key, note text not null);
create function stamp() returns trigger language plpgsql as $$
begin new.id = coalesce(new.id, nextval('"${schema}".stamped_seq')); return new; end $$;
create trigger stamp before insert on stamped for each row execute function stamp();
create table random_uuid (id uuid primary key default gen_random_uuid(), note text not null);
create table seven_uuid (id uuid primary key default uuidv7(), note text not null);
create table locked_identity (id int generated always as identity primary key, note text not null);
create table locked_serial (id serial primary key, note text not null);
create table visit (id bigint primary key default next_snowflake(), at timestamptz not null default now(),
  source text default 'web');
create table doubled (a int not null, id int generated always as (a * 2) stored primary key, v text,
  tripled int generated always as (a * 3) stored);
create table paired (a int not null, g int generated always as (a + 1) stored, v text, primary key (a, g));
create table keyed_doc (doc jsonb not null, n int not null, code text generated always as ((doc->>'code') || '-' || n) stored primary key,
  note text, upper_note text generated always as (upper(note)) stored);
grant usage on schema "${schema}" to ${role};
grant select, insert, update, delete on all tables in schema "${schema}" to ${role};
grant usage on sequence ticket_seq, snow_seq, ticket_line_id_seq, stamped_seq, account_id_seq, account_ref_id_seq to ${role};
reset search_path;
`
}

beforeAll(async () => {
  await db.sql.unsafe(`create role ${role}`)
  for (const driver of drivers) for (const mode of modes) await db.sql.unsafe(ddl(schemaOf(driver, mode)))
})

afterAll(async () => {
  await db.sql.unsafe(`drop owned by ${role}; drop role ${role}`).catch(() => {})
})

/** A root entity manager on one connection as the role, in (driver, mode)'s schema. */
async function setup(driver: DriverName, mode: PipelineMode, serverValues = true) {
  const schema = schemaOf(driver, mode)
  const c = db.client(driver, {
    max: 1,
    postgresJs: { connection: { search_path: schema, role } },
    pg: { options: `-c search_path=${schema} -c role=${role}` },
  })
  const root = await EntityManager.connect(c.client, { pipeline: mode, serverValues })
  return { ...c, root, schema }
}

function expectedTrips(mode: PipelineMode, report: FlushReport): number {
  return mode === 'burst' ? 1 : mode === 'waves' ? 2 + report.waves : 2 + report.statements
}

describe.each(drivers)('%s', (driver) => {
  test.each(modes)(
    "%s: rows giving no column (every one its DEFAULT, the key a function's), one and several: written, their keys and values read back",
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      for (const count of [1, 3]) {
        const em = root.fork()
        const visits = Array.from({ length: count }, () => em.create('visit', {}))
        const report = await counted(counter, () => em.flush())
        expect(report).toMatchObject({ inserted: count, statements: 1 })
        expect(report.roundTrips).toBe(expectedTrips(mode, report))
        const ids = visits.map((v) => String(v['id']))
        const rows = await query<{ id: string; source: string }>(
          `select id::text, source from "${schema}".visit where id in (${ids.join(', ')})`,
        )
        expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort())
        expect(new Set(ids).size).toBe(count)
        expect(visits.every((v) => v['source'] === 'web' && v['at'] instanceof Date)).toBe(true)
        expect(visits.map((v) => em.stateOf(v))).toEqual(visits.map(() => 'managed'))
      }
    },
  )

  // Bug (outside probe): an update of a row whose key is a generated column returned that column
  // twice (as the key, and as a generated column), which the server refused: 42702, "column
  // reference ... is ambiguous". Rows of such a table could be inserted and deleted, never updated.
  test.each(modes)(
    '%s: rows whose key is a generated column (alone, or part of a composite key) are updated',
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const made = [1, 2, 3].map((a) => em.create('doubled', { a, v: 'new' }))
      const pair = em.create('paired', { a: 5, v: 'new' })
      await em.flush()
      expect(made.map((d) => [d['id'], d['tripled']])).toEqual([
        [2, 3],
        [4, 6],
        [6, 9],
      ])
      expect(pair['g']).toBe(6)
      const later = root.fork()
      const [one, two] = await Promise.all([later.load('doubled', 2), later.load('doubled', 4)])
      const loadedPair = await later.load('paired', { a: 5, g: 6 })
      one['v'] = 'changed'
      two['v'] = 'changed'
      loadedPair['v'] = 'changed'
      made[2]!['v'] = 'changed too' // from the unit that made it
      const report = await counted(counter, () => later.flush())
      expect(report).toMatchObject({ updated: 3 })
      expect(report.roundTrips).toBe(expectedTrips(mode, report))
      const again = await counted(counter, () => em.flush())
      expect(again).toMatchObject({ updated: 1 })
      expect(await query(`select id, v, tripled from "${schema}".doubled order by id`)).toEqual([
        { id: 2, v: 'changed', tripled: 3 },
        { id: 4, v: 'changed', tripled: 6 },
        { id: 6, v: 'changed too', tripled: 9 },
      ])
      expect(await query(`select a, g, v from "${schema}".paired`)).toEqual([{ a: 5, g: 6, v: 'changed' }])
      expect([one['tripled'], loadedPair['g'], later.stateOf(one)]).toEqual([3, 6, 'managed'])
    },
  )

  // Outside probe: an update of a column that a generated key is computed from changed the row's key
  // in the database while its entity kept the old one, so a later change of it found no row. Such a
  // change is refused before anything is sent, as a change of the key itself is.
  test('a change of a column a generated key is computed from is refused before sending; the same value, and the other columns, are not', async () => {
    const { root, counter, query, schema } = await setup(driver, 'burst')
    expect(root.schema.tables.get('doubled')?.keyInputs).toEqual(new Map([['a', 'id']]))
    expect(root.schema.tables.get('keyed_doc')?.keyInputs).toEqual(
      new Map([
        ['doc', 'code'],
        ['n', 'code'],
      ]),
    )
    // A generated column outside the key (tripled, upper_note) makes no input of the key.
    expect(root.schema.tables.get('keyed_doc')?.columnsByName.get('upper_note')?.generatedFrom).toEqual([
      'note',
    ])
    const em = root.fork()
    const row = em.create('doubled', { a: 50, v: 'new' })
    const doc = em.create('keyed_doc', { doc: { code: 'k', tags: ['x'] }, n: 1, note: 'new' })
    await em.flush()
    expect([row['id'], doc['code']]).toEqual([100, 'k-1'])
    const units = [em, root.fork()]
    const loaded = [await units[1]!.load('doubled', 100), await units[1]!.load('keyed_doc', 'k-1')]
    for (const [unit, [d, k]] of [
      [units[0]!, [row, doc]],
      [units[1]!, loaded],
    ] as const) {
      // By assignment: refused at once, the entity as it was.
      expect(() => {
        d['a'] = 51
      }).toThrow(expect.objectContaining({ code: 'INVALID_STATE', table: 'doubled', column: 'a' }))
      expect(() => {
        k['n'] = 2
      }).toThrow(/keyed_doc\.n of a stored row: primary key column keyed_doc\.code is generated from it/)
      expect([d['a'], k['n'], unit.stateOf(d)]).toEqual([50, 1, 'managed'])
      // The value it holds may be assigned again; the other columns change as usual.
      d['a'] = 50
      d['v'] = 'changed'
      k['note'] = 'changed'
      const report = await counted(counter, () => unit.flush())
      expect(report).toMatchObject({ updated: 2, roundTrips: 1 })
      expect(k['upper_note']).toBe('CHANGED')
      // Changed in place, where no assignment sees it: the flush refuses it before sending, and
      // leaves the unit as it was, so that the caller can undo the change and flush again.
      ;(k['doc'] as { code: string }).code = 'other'
      k['note'] = 'kept pending'
      counter.reset()
      await expect(unit.flush()).rejects.toMatchObject({
        code: 'INVALID_STATE',
        table: 'keyed_doc',
        column: 'doc',
      })
      expect(counter.read().roundTrips).toBe(0)
      ;(k['doc'] as { code: string }).code = 'k'
      expect(await counted(counter, () => unit.flush())).toMatchObject({ updated: 1 })
    }
    expect(await query(`select code, note, upper_note, doc from "${schema}".keyed_doc`)).toEqual([
      { code: 'k-1', note: 'kept pending', upper_note: 'KEPT PENDING', doc: { code: 'k', tags: ['x'] } },
    ])
    expect(await query(`select id, a, v from "${schema}".doubled where a = 50`)).toEqual([
      { id: 100, a: 50, v: 'changed' },
    ])
  })

  test.each(modes)(
    '%s: keys a DEFAULT fills (an expression, a function, an identity the role may not draw from) are read back into their entities, in order, one round trip in burst',
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const tickets = Array.from({ length: 300 }, (_, i) => em.create('ticket', { note: `n${i}` }))
      const flakes = [em.create('snowflake', { note: 'a' }), em.create('snowflake', { id: null, note: 'b' })]
      const locked = [0, 1, 2].map((i) => em.create('locked_identity', { note: `l${i}` }))
      const shift = em.create('shift', { store_id: 7, note: 'night' })
      // Rows routed to two partitions, alternately: their keys still come back in the order sent.
      const readings = Array.from({ length: 40 }, (_, i) =>
        em.create('reading', { taken: i % 2 === 0 ? '2024-01-15' : '2024-02-15', value: i }),
      )
      const plan = em.plan()
      const ticketInsert = plan.waves.flat().find((s) => s.table === 'ticket')!
      expect(ticketInsert.columns).toEqual(['note']) // the key left to its DEFAULT
      expect(ticketInsert.sources).toHaveLength(300)
      const report = await counted(counter, () => em.flush())
      expect(report).toMatchObject({ inserted: 346, idFetch: false })
      expect(report.roundTrips).toBe(expectedTrips(mode, report))
      if (mode === 'burst') expect(report.roundTrips).toBe(1)
      const stored = new Map(
        (await query<{ code: string; note: string }>(`select code, note from "${schema}".ticket`)).map(
          (r) => [r.note, r.code],
        ),
      )
      expect(stored.size).toBe(300)
      expect(tickets.map((t) => t['code'])).toEqual(tickets.map((_, i) => stored.get(`n${i}`)))
      expect(tickets[0]!['created_at']).toBeInstanceOf(Date)
      const flakeRows = await query<{ id: string; note: string }>(
        `select id::text, note from "${schema}".snowflake order by note`,
      )
      expect(flakes.map((f) => f['id'])).toEqual(flakeRows.map((r) => r.id))
      const lockedRows = await query<{ id: number; note: string }>(
        `select id, note from "${schema}".locked_identity order by note`,
      )
      expect(locked.map((l) => l['id'])).toEqual(lockedRows.map((r) => r.id))
      const [shiftRow] = await query<{ shift_no: string }>(`select shift_no::text from "${schema}".shift`)
      expect(shift['shift_no']).toBe(shiftRow!.shift_no)
      const readingRows = await query<{ id: string; value: number }>(
        `select id::text, value from "${schema}".reading order by value`,
      )
      expect(readings.map((r) => r['id'])).toEqual(readingRows.map((r) => r.id))
      // Tracked under their keys now: loaded without a query, changed and removed by key.
      counter.reset()
      expect(await em.load('ticket', tickets[5]!['code'])).toBe(tickets[5])
      expect(await em.load('shift', { store_id: 7, shift_no: shift['shift_no'] })).toBe(shift)
      expect(counter.read().roundTrips).toBe(0)
      tickets[5]!['note'] = 'changed'
      em.remove(flakes[0]!)
      locked[1]!['note'] = 'renamed'
      await em.flush()
      const [after] = await query(
        `select (select note from "${schema}".ticket where code = '${tickets[5]!['code']}') as note,
           (select count(*)::int from "${schema}".snowflake) as flakes,
           (select note from "${schema}".locked_identity where id = ${Number(locked[1]!['id'])}) as renamed`,
      )
      expect(after).toEqual({ note: 'changed', flakes: 1, renamed: 'renamed' })
    },
  )

  test.each(modes)(
    '%s: with serverValues off, keys the server fills still come back (and nothing else)',
    async (mode) => {
      const { root, query, schema } = await setup(driver, mode, false)
      const em = root.fork()
      const ticket = em.create('ticket', { note: 'quiet' })
      await em.flush()
      const [row] = await query<{ code: string }>(`select code from "${schema}".ticket where note = 'quiet'`)
      expect(ticket['code']).toBe(row!.code)
      expect(ticket['created_at']).toBeUndefined()
      expect(em.stateOf(ticket)).toBe('managed')
    },
  )

  test.each(modes)(
    '%s: uuid keys with gen_random_uuid() or uuidv7() defaults are made at create (v7), known before the flush',
    async (mode) => {
      const { root, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const a = em.create('random_uuid', { note: 'a' })
      const b = em.create('seven_uuid', { note: 'b' })
      for (const id of [a['id'], b['id']]) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/)
      await em.flush()
      const rows = await query<{ id: string }>(
        `select id::text from "${schema}".random_uuid union all select id::text from "${schema}".seven_uuid`,
      )
      expect(rows.map((r) => r.id).sort()).toEqual([a['id'], b['id']].sort())
    },
  )

  test.each(modes)(
    '%s: a new row referencing, through a unique column the server fills, a new entity is refused before sending; flushing it first works',
    async (mode) => {
      const { root, counter } = await setup(driver, mode)
      const em = root.fork()
      for (const column of ['account_ext', 'account_serial', 'account_twice']) {
        const account = em.create('account', {})
        const ref = em.create('account_ref', { [column]: account })
        counter.reset()
        await expect(em.flush()).rejects.toMatchObject({
          code: 'INVALID_STATE',
          table: 'account_ref',
          column,
          message: expect.stringMatching(
            /refers to a new account entity whose "\w+" \(what the foreign key references\) the server fills/,
          ),
        })
        expect(counter.read().writes).toBe(0)
        em.remove(ref)
        await em.flush()
        const again = em.create('account_ref', { [column]: account })
        await em.flush()
        expect(again[column]).toEqual(
          account[column === 'account_ext' ? 'ext' : column === 'account_serial' ? 'serial_no' : 'twice'],
        )
        expect(again[column]).toEqual(expect.anything())
      }
    },
  )

  test.each(modes)(
    '%s: a new row referencing a new entity whose key the server fills is refused before sending; the unit of work is as it was, and flushing the parent first works',
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const ticket = em.create('ticket', { note: 'parent' })
      const line = em.create('ticket_line', { ticket_code: ticket, qty: 2 })
      counter.reset()
      await expect(em.flush()).rejects.toMatchObject({
        code: 'INVALID_STATE',
        table: 'ticket_line',
        column: 'ticket_code',
        message: expect.stringMatching(
          /new ticket entity whose "code" \(what the foreign key references\) the server fills/,
        ),
      })
      expect(counter.read().writes).toBe(0)
      expect(em.pending).toEqual({ inserts: 2, updates: 0, deletes: 0, upserts: 0 })
      expect(ticket['code']).toBeUndefined()
      // Fixed: the parent goes first, then the line references its key.
      em.remove(line)
      await em.flush()
      const again = em.create('ticket_line', { ticket_code: ticket, qty: 2 })
      await em.flush()
      const [row] = await query(
        `select l.ticket_code, t.note from "${schema}".ticket_line l join "${schema}".ticket t on t.code = l.ticket_code where l.id = ${Number(again['id'])}`,
      )
      expect(row).toEqual({ ticket_code: ticket['code'], note: 'parent' })
    },
  )

  test.each(modes)(
    '%s: a key from a sequence the role may not use is refused before sending, naming the sequence; given keys still work',
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      expect(root.schema.tables.get('locked_serial')?.columnsByName.get('id')).toMatchObject({
        sequence: `${schema}.locked_serial_id_seq`,
        sequenceDenied: true,
      })
      const em = root.fork()
      const row = em.create('locked_serial', { note: 'no id' })
      counter.reset()
      await expect(em.flush()).rejects.toMatchObject({
        code: 'UNSUPPORTED_TABLE',
        table: 'locked_serial',
        column: 'id',
        message: expect.stringContaining(`GRANT USAGE ON SEQUENCE ${schema}.locked_serial_id_seq`),
      })
      expect(counter.read().writes).toBe(0)
      row['id'] = 1000
      await em.flush()
      const [stored] = await query(`select id, note from "${schema}".locked_serial`)
      expect(stored).toEqual({ id: 1000, note: 'no id' })
    },
  )

  test.each(modes)(
    '%s: a key a trigger fills is unknown to the catalog (it must be given); declared `default: true` in code, it is read back',
    async (mode) => {
      const { root, client, query, schema } = await setup(driver, mode)
      const read = root.fork()
      read.create('stamped', { note: 'no id' })
      await expect(read.flush()).rejects.toMatchObject({ code: 'INVALID_VALUE', column: 'id' })
      const declared = await EntityManager.connect(client, {
        pipeline: mode,
        schema: defineSchema(
          { stamped: { columns: { id: { type: 'int4', default: true }, note: 'text' }, primaryKey: ['id'] } },
          { schema },
        ),
      })
      const em = declared.fork()
      const rows = [em.create('stamped', { note: 'a' }), em.create('stamped', { note: 'b' })]
      await em.flush()
      const stored = await query<{ id: number }>(`select id from "${schema}".stamped order by note`)
      expect(rows.map((r) => r['id'])).toEqual(stored.map((r) => r.id))
    },
  )
})
