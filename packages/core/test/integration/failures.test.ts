import { EntityManager, isPipeflushError, type PipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table account (id bigserial primary key, owner text not null unique, balance numeric not null check (balance >= 0),
      version int not null default 1);
    create table ledger (id bigserial primary key, account_id bigint not null references account, amount numeric not null);
    create table gadget (id serial primary key, name text not null, note text);
    create table part (id int primary key, n int not null check (n > 0), account_id bigint references account);
    create table tally (id int primary key, n int not null, version int not null default 1);
    create table reading (id bigserial primary key, device text not null, recorded_at timestamptz not null,
      value float8 not null, unique (device, recorded_at));
    create table post (id int primary key);
    create table note (id int primary key, post_id int not null references post);
    create table star (id int primary key, post_id int not null references post);
    create table "Badge" ("Badge Id" int primary key, "Code, Name" text not null, slot int not null);
    create unique index badge_code on "Badge" ("Code, Name");
    create domain positive_int as int check (value > 0);
    create table guarded (id int primary key, name text not null, score positive_int);
    create function guard_name() returns trigger language plpgsql as $$
      begin
        if new.name = 'forbidden' then raise exception 'the name % is forbidden', new.name using column = 'name'; end if;
        return new;
      end $$;
    create trigger guarded_name before insert or update on guarded for each row execute function guard_name();
    create table dept (id int primary key);
    create table staff (id int primary key, dept_id int references dept deferrable initially deferred);
  `)
})

async function counts() {
  const [row] = await db.sql<{ a: number; l: number; g: number }[]>`
    select (select count(*) from account)::int as a, (select count(*) from ledger)::int as l, (select count(*) from gadget)::int as g`
  return row!
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each(modes)('%s', (mode) => {
    test('a constraint violation in the middle commits nothing, leaves the unit of work as it was, and a retry after the fix succeeds', async () => {
      const { client } = db.client(driver, { max: 2 })
      const em = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const before = await counts()
      const a = em.create('account', { owner: `alice-${driver}-${mode}`, balance: '100' })
      em.create('ledger', { account_id: a, amount: '100' })
      const bad = em.create('account', { owner: `bob-${driver}-${mode}`, balance: '-5' }) // check constraint
      em.create('gadget', { name: 'g' })
      const pendingBefore = em.pending
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      const pe = error as PipeflushError
      expect(pe.constraint).toBe('account_balance_check')
      expect(pe.table).toBe('account')
      expect(pe.cause).toBeDefined()
      expect(pe.flushId).toMatch(/-/)
      expect(await counts()).toEqual(before) // nothing committed
      expect(em.pending).toEqual(pendingBefore) // unit of work unchanged
      expect(em.stateOf(a)).toBe('new')
      bad['balance'] = '5'
      const report = await em.flush()
      expect(report.inserted).toBe(4)
      const after = await counts()
      expect(after).toEqual({ a: before.a + 2, l: before.l + 1, g: before.g + 1 })
      expect(em.stateOf(a)).toBe('managed')
      expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    })

    // One message holds every statement of a burst (and of a wave on postgres.js): the server names
    // the table, not the statement. With an update and an insert of one table, the error must name
    // the one that failed, and its rows.
    test('a key taken by an insert beside an update of the same table: the error names the insert and its key', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const [taken] = await db.sql<{ id: number }[]>`insert into gadget (name) values ('taken') returning id`
      const [kept] = await db.sql<{ id: number }[]>`insert into gadget (name) values ('kept') returning id`
      const em = root.fork()
      const [k] = await em.find('gadget', { id: kept!.id })
      k!['name'] = 'renamed'
      const dup = em.create('gadget', { id: taken!.id, name: 'duplicate' })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 16), pe.table, pe.keys, pe.constraint, pe.column]).toEqual([
        'insert on gadget',
        'gadget',
        [taken!.id],
        'gadget_pkey',
        'id', // the primary key's one column, named by the detail (no unique constraint is so named)
      ])
      dup['id'] = undefined
      expect((await em.flush()).inserted).toBe(1)
    })

    // Bug: an insert of several rows refused for one of them gave every row's key: which account's
    // owner was taken, or which ledger row's account was missing, could only be read from the detail.
    test('a statement of several rows refused for one: keys name the rows the server named', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const owner = (n: string) => `keys-${n}-${driver}-${mode}`
      const seed = root.fork()
      const held = seed.create('account', { owner: owner('held'), balance: '1' })
      await seed.flush()
      const before = await counts()
      const em = root.fork()
      const accounts = ['a', 'b'].map((n) => em.create('account', { owner: owner(n), balance: '1' }))
      const taken = em.create('account', { owner: owner('held'), balance: '1' })
      accounts.push(em.create('account', { owner: owner('d'), balance: '1' }))
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      expect((error as PipeflushError).keys).toEqual([taken['id']])
      expect(await counts()).toEqual(before)
      taken['owner'] = owner('c')

      const missing = Number(held['id']) + 1_000_000
      const ledgers = [held['id'], missing, held['id']].map((id) =>
        em.create('ledger', { account_id: id, amount: '1' }),
      )
      const refused = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(refused, 'CONSTRAINT_VIOLATION')).toBe(true)
      expect([(refused as PipeflushError).table, (refused as PipeflushError).keys]).toEqual([
        'ledger',
        [ledgers[1]!['id']],
      ])
      expect(await counts()).toEqual(before)
      ledgers[1]!['account_id'] = accounts[0]
      expect((await em.flush()).inserted).toBe(7)
    })

    test('a key or a unique index value taken, quoted names: the column the detail names', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const base = 1_000 * (TEST_DRIVERS.indexOf(driver) * modes.length + modes.indexOf(mode))
      await db.sql.unsafe(`insert into "Badge" values (${base + 1}, 'taken ${base}', 1)`)
      for (const [values, column, constraint] of [
        [{ 'Badge Id': base + 1, 'Code, Name': `free ${base}` }, 'Badge Id', 'Badge_pkey'],
        [{ 'Badge Id': base + 2, 'Code, Name': `taken ${base}` }, 'Code, Name', 'badge_code'],
      ] as const) {
        const em = root.fork()
        em.create('Badge', { ...values, slot: 1 })
        em.create('gadget', { name: 'beside it' })
        const error = await em.flush().catch((e: unknown) => e)
        expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
        expect(error).toMatchObject({ table: 'Badge', constraint, column })
      }
    })

    test('a unique value taken by an update beside an insert of the same table: the error names the update and its key', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const seed = root.fork()
      const holder = seed.create('account', { owner: `holder-${driver}-${mode}`, balance: '1' })
      const mover = seed.create('account', { owner: `mover-${driver}-${mode}`, balance: '1' })
      await seed.flush()
      const em = root.fork()
      const [m] = await em.find('account', { id: mover['id'] })
      m!['owner'] = holder['owner']
      em.create('account', { owner: `fresh-${driver}-${mode}`, balance: '1' })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 17), pe.constraint, pe.keys, pe.column]).toEqual([
        'update on account',
        'account_owner_key',
        [mover['id']],
        'owner', // the unique constraint's one column (the server names none)
      ])
    })

    // A check or a NULL refused names a table and a constraint or column, no key: of the statements on
    // that table, the one that wrote the refused value.
    test('a check refused by an insert beside a delete of the same table: the error names the insert and its key', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const base = 1_000 * (TEST_DRIVERS.indexOf(driver) * modes.length + modes.indexOf(mode))
      await db.sql`insert into part (id, n) values (${base + 1}, 1)`
      const em = root.fork()
      em.remove(await em.load('part', base + 1))
      // Its parent is new: the insert goes after the delete (the message's first statement on part).
      const parent = em.create('account', { owner: `part-${driver}-${mode}`, balance: '1' })
      em.create('part', { id: base + 2, n: 0, account_id: parent })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 14), pe.constraint, pe.keys]).toEqual([
        'insert on part',
        'part_n_check',
        [base + 2],
      ])
    })

    // A trigger's RAISE and a domain's check name no table: one message holding every statement, the
    // failing one is told by how many statements the server completed before the error.
    test('an error naming no table (a trigger raising, a domain check): the error names the statement that failed', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const base = 1_000 * (TEST_DRIVERS.indexOf(driver) * modes.length + modes.indexOf(mode) + 1)
      await db.sql.unsafe(`insert into guarded values (${base + 1}, 'kept', 1)`)
      const before = await counts()
      const raised = root.fork()
      ;(await raised.load('guarded', base + 1))['name'] = 'renamed'
      raised.create('gadget', { name: 'beside it' })
      const forbidden = raised.create('guarded', { id: base + 2, name: 'forbidden' })
      const error = await raised.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'STATEMENT_FAILED')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 17), pe.table, pe.keys, pe.sqlState, pe.column]).toEqual([
        'insert on guarded',
        'guarded',
        [base + 2],
        'P0001',
        'name', // the RAISE's USING COLUMN
      ])
      expect(await counts()).toEqual(before)
      forbidden['name'] = 'allowed'
      expect((await raised.flush()).inserted).toBe(2)

      const checked = root.fork()
      ;(await checked.load('guarded', base + 1))['score'] = -1
      checked.create('guarded', { id: base + 3, name: 'fine', score: 2 })
      checked.create('gadget', { name: 'beside it too' })
      const refused = await checked.flush().catch((e: unknown) => e)
      expect(isPipeflushError(refused, 'CONSTRAINT_VIOLATION')).toBe(true)
      const re = refused as PipeflushError
      expect([re.message.slice(0, 17), re.table, re.keys, re.constraint]).toEqual([
        'update on guarded',
        'guarded',
        [base + 1],
        'positive_int_check',
      ])
    })

    // Found as the transaction ends: in a burst with the message, else at the COMMIT of its own.
    test('a deferred foreign key violated: the error names the insert, its key and the column', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const base = 1_000 * (TEST_DRIVERS.indexOf(driver) * modes.length + modes.indexOf(mode) + 1)
      const before = await counts()
      const em = root.fork()
      em.create('gadget', { name: 'beside the orphan' })
      const orphan = em.create('staff', { id: base + 1, dept_id: base + 999 })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 15), pe.table, pe.column, pe.constraint, pe.keys]).toEqual([
        'insert on staff',
        'staff',
        'dept_id',
        'staff_dept_id_fkey',
        [base + 1],
      ])
      expect(await counts()).toEqual(before)
      em.create('dept', { id: base + 999 })
      expect((await em.flush()).inserted).toBe(3)
      expect(em.stateOf(orphan)).toBe('managed')
    })

    test('a NULL refused in the second of two inserts of one table: the error names that insert and its key', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const em = root.fork()
      em.create('gadget', { id: 8_000_000 + modes.indexOf(mode), name: 'fine' })
      em.create('gadget', { id: 8_100_000 + modes.indexOf(mode), name: null, note: 'x' })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error)).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 16), pe.keys]).toEqual([
        'insert on gadget',
        [8_100_000 + modes.indexOf(mode)],
      ])
    })

    // The server names the referencing table of a row still referenced; the delete of the referenced
    // row failed, beside an insert into the referencing table.
    test('a row still referenced, deleted beside an insert into the referencing table: the error names the delete and its key', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const seed = root.fork()
      const held = seed.create('account', { owner: `held-${driver}-${mode}`, balance: '1' })
      const other = seed.create('account', { owner: `other-${driver}-${mode}`, balance: '1' })
      seed.create('ledger', { account_id: held, amount: '1' })
      await seed.flush()
      const before = await counts()
      const em = root.fork()
      const [h] = await em.find('account', { id: held['id'] })
      em.remove(h!)
      em.create('ledger', { account_id: other['id'], amount: '2' })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 17), pe.table, pe.constraint, pe.keys]).toEqual([
        'delete on account',
        'account',
        'ledger_account_id_fkey',
        [held['id']],
      ])
      expect(await counts()).toEqual(before)
      expect(em.pending).toEqual({ inserts: 1, updates: 0, deletes: 1, upserts: 0 })
    })

    // A post deleted with its notes while another transaction stars it: the server names star and its
    // foreign key, and a note's delete holds the post's key in a column of the same name (note 1 of
    // post 1). The error names the post's delete, not the note's.
    test("a row still referenced, while another table's delete holds the same key: the error names the referenced table's delete", async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const base = 1_000 * (TEST_DRIVERS.indexOf(driver) * modes.length + modes.indexOf(mode) + 1)
      await db.sql.unsafe(
        `insert into post values (${base}); insert into note values (${base}, ${base}), (${base + 1}, ${base})`,
      )
      const em = root.fork()
      for (const note of await em.find('note', { post_id: base })) em.remove(note)
      em.remove(await em.load('post', base))
      await db.sql.unsafe(`insert into star values (${base}, ${base})`) // committed meanwhile
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.message.slice(0, 14), pe.table, pe.constraint, pe.keys]).toEqual([
        'delete on post',
        'post',
        'star_post_id_fkey',
        [base],
      ])
      expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 3, upserts: 0 })
    })

    // An upsert that updates a versioned row increments its version, as an update does: the unit that
    // loaded the row before fails instead of overwriting what the upsert wrote.
    test('an upsert updating a versioned row increments its version: a unit that loaded it before fails OPTIMISTIC_LOCK', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const owner = `upserted-${driver}-${mode}`
      const seed = root.fork()
      const row = seed.create('account', { owner, balance: '10' })
      await seed.flush()
      const stale = root.fork()
      const [loaded] = await stale.find('account', { id: row['id'] })
      const upserting = root.fork()
      const up = upserting.upsert(
        'account',
        { owner, balance: '20' },
        { conflict: ['owner'], update: ['balance'] },
      )
      await upserting.flush()
      expect([up['balance'], up['version']]).toEqual(['20', 2])
      const nothing = root.fork()
      nothing.upsert('account', { owner, balance: '99' }, { conflict: ['owner'], update: [] })
      await nothing.flush()
      loaded!['balance'] = '30'
      const error = await stale.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'OPTIMISTIC_LOCK')).toBe(true)
      const [stored] = await db.sql<{ balance: string; version: number }[]>`
        select balance::text, version from account where owner = ${owner}`
      expect(stored).toEqual({ balance: '20', version: 2 })
    })

    // Written there, a version would set the row back (3 to 1, say), and a unit that loaded the row at
    // that version would then overwrite the updates in between, unseen.
    test('an upsert naming the version column among its update columns is INVALID_CONFIG before anything is sent', async () => {
      const { client, counter } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const owner = `version-update-${driver}-${mode}`
      const seed = root.fork()
      seed.create('account', { owner, balance: '10' })
      await seed.flush()
      await db.sql`update account set version = 3 where owner = ${owner}`
      for (const values of [
        { owner, balance: '20', version: 1 },
        { owner, balance: '20' },
      ]) {
        const em = root.fork()
        em.upsert('account', values, { conflict: ['owner'], update: ['balance', 'version'] })
        counter.reset()
        const error = await em.flush().catch((e: unknown) => e)
        expect(isPipeflushError(error, 'INVALID_CONFIG')).toBe(true)
        expect((error as PipeflushError).message).toContain('"version" is the version column')
        expect((error as PipeflushError).column).toBe('version')
        expect(counter.read().roundTrips).toBe(0)
        expect(em.pending.upserts).toBe(1)
      }
      // The version given among the values, not in `update`: the upsert increments the stored one.
      const em = root.fork()
      const up = em.upsert(
        'account',
        { owner, balance: '30', version: 1 },
        { conflict: ['owner'], update: ['balance'] },
      )
      await em.flush()
      const [stored] = await db.sql<{ balance: string; version: number }[]>`
        select balance::text, version from account where owner = ${owner}`
      expect(stored).toEqual({ balance: '30', version: 4 })
      expect(up['version']).toBe(4)
    })

    test('a stale versioned update fails the whole flush with OPTIMISTIC_LOCK naming table and ids, commits nothing', async () => {
      const { client, counter } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const seed = root.fork()
      const x = seed.create('account', { owner: `x-${driver}-${mode}`, balance: '10' })
      const y = seed.create('account', { owner: `y-${driver}-${mode}`, balance: '10' })
      await seed.flush()
      const warm = root.fork() // the same statement shapes once (for pg, named statements get prepared)
      const [x0, y0] = await warm.find('account', { id: [x['id'], y['id']] })
      x0!['balance'] = '12'
      y0!['balance'] = '12'
      warm.create('gadget', { name: 'warm-up' })
      await warm.flush()
      const em = root.fork()
      const [x1, y1] = await em.find('account', { id: [x['id'], y['id']] })
      // Another transaction changes y meanwhile.
      await db.sql`update account set balance = 11, version = version + 1 where id = ${String(y['id'])}`
      x1!['balance'] = '9'
      y1!['balance'] = '11'
      em.create('gadget', { name: 'during stale' })
      const gadgetsBefore = (await counts()).g
      counter.reset()
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'OPTIMISTIC_LOCK')).toBe(true)
      expect((error as PipeflushError).table).toBe('account')
      expect((error as PipeflushError).keys).toEqual([String(y['id'])])
      expect((error as PipeflushError).message).toContain(String(y['id']))
      const [xRow] = await db.sql`select balance::text from account where id = ${String(x['id'])}`
      expect(xRow?.['balance']).toBe('12')
      expect((await counts()).g).toBe(gadgetsBefore)
      if (mode === 'burst') expect(counter.read().roundTrips).toBe(1) // no extra round trip for the check
      expect(em.pending.updates).toBe(2)
    })
    test('an upsert whose conflict columns no unique constraint matches, beside other statements: the error names the upsert', async () => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client, { pipeline: mode })
      const em = root.fork()
      em.create('account', { owner: `beside-upsert-${driver}-${mode}`, balance: '1' })
      em.upsert('gadget', { name: `no-unique-${driver}-${mode}` }, { conflict: ['name'], update: [] })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'STATEMENT_FAILED')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.sqlState, pe.table, pe.message.slice(0, 16)]).toEqual([
        '42P10',
        'gadget',
        'insert on gadget',
      ])
    })

    // An int4 key: the error gives the key as the application holds it (a number), whichever statement
    // of the message failed, and no SQLSTATE (the server's is how the check fails the statement).
    test('a stale update beside other statements: OPTIMISTIC_LOCK names the update and the key as held', async () => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const id = 100 + TEST_DRIVERS.indexOf(driver) * modes.length + modes.indexOf(mode)
      await db.sql`insert into tally (id, n) values (${id}, 1), (${id + 1000}, 1)`
      const em = root.fork()
      const [t, u] = await em.find('tally', { id: [id, id + 1000] }, { orderBy: { id: 'asc' } })
      await db.sql`update tally set n = 5, version = version + 1 where id = ${id}`
      t!['n'] = 2
      em.remove(u!)
      em.create('gadget', { name: `beside stale ${id}` })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'OPTIMISTIC_LOCK')).toBe(true)
      const pe = error as PipeflushError
      expect([pe.table, pe.keys, pe.sqlState]).toEqual(['tally', [id], undefined])
      expect(pe.message).toMatch(/update/)
    })
  })

  describe('bad input is a clear error before anything is sent', () => {
    test.each([
      ['undefined', { name: undefined }, /gadget\.name|column name/],
      ['NaN in an int column', { name: 'n', id: Number.NaN }, /NaN/],
      ['a number for text', { name: 5 }, /name/],
      ['a lone surrogate', { name: 'a\ud800b' }, /surrogate/],
    ])('%s', async (_label, values, message) => {
      const { client, counter } = db.client(driver, { max: 1 })
      const em = await EntityManager.connect(client) // reads the schema: the connection is open
      counter.reset()
      const error = await (async () => {
        em.create('gadget', { name: 'fine' })
        em.create('gadget', values as Record<string, unknown>)
        return em.flush()
      })().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_VALUE')).toBe(true)
      expect((error as Error).message).toMatch(message)
      expect((error as PipeflushError).table).toBe('gadget')
      expect(counter.read().writes).toBe(0)
    })

    test('unknown tables and columns are rejected at once, naming them', async () => {
      const em = await EntityManager.connect(db.client(driver, { max: 1 }).client)
      expect(() => em.create('gadgets', {})).toThrowError(/Unknown table "gadgets"/)
      expect(() => em.create('gadget', { nam: 'x' })).toThrowError(/gadget has no column "nam"/)
      const g = em.create('gadget', { name: 'ok' })
      expect(() => {
        g['colour'] = 'red'
      }).toThrowError(/gadget has no column "colour"/)
      try {
        em.create('gadget', { nam: 'x' })
      } catch (e) {
        expect((e as PipeflushError).code).toBe('UNKNOWN_COLUMN')
        expect((e as PipeflushError).column).toBe('nam')
      }
    })
  })

  describe('unit of work', () => {
    test('loaded rows are tracked once (identity map) and a flush writes only the columns that changed', async () => {
      const root = await EntityManager.connect(db.client(driver, { max: 1 }).client)
      const seed = root.fork()
      const g = seed.create('gadget', { name: `lamp-${driver}`, note: 'old' })
      await seed.flush()
      const em = root.fork()
      const a = await em.load('gadget', g['id'])
      const [b] = await em.find('gadget', { name: `lamp-${driver}` })
      expect(b).toBe(a)
      a['note'] = 'new'
      a['name'] = `lamp-${driver}` // same value: not a change
      const plan = em.plan()
      const [statement] = plan.waves.flat()
      expect(statement?.kind).toBe('update')
      expect(statement?.columns).toEqual(['note'])
      // Someone else renames it meanwhile: our flush must not overwrite the name.
      await db.sql`update gadget set name = 'desk lamp' where id = ${g['id'] as number}`
      await em.flush()
      const [row] = await db.sql`select name, note from gadget where id = ${g['id'] as number}`
      expect(row).toEqual({ name: 'desk lamp', note: 'new' })
      const again = await em.flush()
      expect(again.statements).toBe(0)
    })

    test('an assignment made while a flush is in flight is not lost: it stays pending for the next flush', async () => {
      const root = await EntityManager.connect(db.client(driver, { max: 1 }).client)
      const seed = root.fork()
      const g = seed.create('gadget', { name: 'radio', note: 'a' })
      await seed.flush()
      const em = root.fork()
      const radio = await em.load('gadget', g['id'])
      radio['note'] = 'b'
      const fresh = em.create('gadget', { name: 'tv' })
      const flushing = em.flush() // sends note = 'b' and the insert
      await Promise.resolve()
      radio['note'] = 'c' // while in flight
      fresh['note'] = 'late'
      const upsertId = 424242 + TEST_DRIVERS.indexOf(driver)
      em.upsert('gadget', { id: upsertId, name: 'late upsert' }, { conflict: ['id'] })
      const first = await flushing
      expect(first).toMatchObject({ updated: 1, inserted: 1, upserted: 0 })
      expect(em.pending).toEqual({ inserts: 0, updates: 2, deletes: 0, upserts: 1 })
      const second = await em.flush()
      expect(second).toMatchObject({ updated: 2, upserted: 1 })
      const rows =
        await db.sql`select name, note from gadget where id in (${g['id'] as number}, ${fresh['id'] as number}, ${upsertId}) order by id`
      expect(rows.map((r) => [r['name'], r['note']])).toEqual([
        ['radio', 'c'],
        ['tv', 'late'],
        ['late upsert', null],
      ])
      expect((await em.flush()).statements).toBe(0)
    })

    test('load of a missing row is NOT_FOUND; remove of a new entity forgets it', async () => {
      const em = await EntityManager.connect(db.client(driver, { max: 1 }).client)
      await expect(em.load('gadget', 987654)).rejects.toMatchObject({ code: 'NOT_FOUND', table: 'gadget' })
      const g = em.create('gadget', { name: 'tmp' })
      em.remove(g)
      expect(em.stateOf(g)).toBe('detached')
      expect((await em.flush()).statements).toBe(0)
    })

    test('upserts are batched per table and pipelined; the last of one key wins', async () => {
      const { client, counter } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client, { idBlockSize: 1000 })
      const device = `d-${driver}`
      const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m))
      const ingest = async (values: number[]) => {
        const em = root.fork()
        for (const [i, v] of values.entries()) {
          em.upsert(
            'reading',
            { device, recorded_at: at(i), value: v },
            { conflict: ['device', 'recorded_at'] },
          )
        }
        em.create('gadget', { name: 'sensor' })
        return em.flush()
      }
      const first = await ingest([1, 2, 3])
      expect(first.upserted).toBe(3)
      await ingest([4, 5, 6]) // the statement shapes known, ids in the pool
      counter.reset()
      const em = root.fork()
      em.upsert('reading', { device, recorded_at: at(0), value: 10 }, { conflict: ['device', 'recorded_at'] })
      em.upsert('reading', { device, recorded_at: at(0), value: 11 }, { conflict: ['device', 'recorded_at'] })
      em.upsert('reading', { device, recorded_at: at(9), value: 12 }, { conflict: ['device', 'recorded_at'] })
      em.create('gadget', { name: 'sensor' })
      const report = await em.flush()
      expect(report).toMatchObject({ upserted: 2, statements: 2, roundTrips: 1 })
      expect(counter.read().roundTrips).toBe(1)
      const rows =
        await db.sql`select extract(minute from recorded_at)::int as m, value from reading where device = ${device} order by recorded_at`
      expect(rows.map((r) => [r['m'], r['value']])).toEqual([
        [0, 11],
        [1, 5],
        [2, 6],
        [9, 12],
      ])
    })
  })
})
