import { EntityManager, type FlushHooks, isPipeflushError, MAX_HOOK_ROUNDS } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

const db = useTestDatabase()

const DDL = `
create table author (id bigserial primary key, name text not null, updated_at timestamptz);
create table book (
  id bigserial primary key,
  author_id bigint not null references author (id),
  title text not null check (title <> 'bad'),
  updated_at timestamptz
);
create table outbox (
  id bigserial primary key,
  topic text not null,
  author_id bigint references author (id),
  book_id bigint references book (id)
);
create table tag (id bigserial primary key, name text not null unique, updated_at timestamptz);
`

beforeAll(async () => {
  await db.sql.unsafe(DDL)
})

async function setup(driver: (typeof TEST_DRIVERS)[number], hooks: FlushHooks) {
  const c = db.client(driver, { max: 2 })
  const root = await EntityManager.connect(c.client, { idBlockSize: 100, hooks })
  return { ...c, root }
}

async function count(table: string, where = 'true'): Promise<number> {
  const [row] = await db.sql.unsafe(`select count(*)::int as n from ${table} where ${where}`)
  return row!.n as number
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('hooks run in the documented order, their changes go out in the same single round trip', async () => {
    const calls: string[] = []
    const { root, counter } = await setup(driver, {
      beforeFlush(em, { created, updated, run }) {
        calls.push(
          `beforeFlush#${run} created=${created.map((e) => em.tableOf(e)).join(',')} updated=${updated.length}`,
        )
        for (const book of created.filter((e) => em.tableOf(e) === 'book'))
          em.create('outbox', { topic: 'book.created', book_id: book })
      },
      tables: {
        author: {
          beforeUpdate: (_a, _em, changed) => void calls.push(`author.beforeUpdate ${changed.join(',')}`),
        },
        book: {
          beforeCreate(book) {
            calls.push(`book.beforeCreate ${book.title}`)
            book.updated_at = new Date(0)
          },
        },
        outbox: { beforeCreate: (o) => void calls.push(`outbox.beforeCreate ${o.topic}`) },
      },
      afterCommit: (report) => void calls.push(`afterCommit inserted=${report.inserted}`),
    })
    const em = root.fork()
    const author = em.create('author', { name: 'Ada' })
    await em.flush()
    calls.length = 0
    author.name = 'Ada L.'
    const book = em.create('book', { author_id: author, title: 'Notes' })
    counter.reset()
    const report = await em.flush()
    expect(calls).toEqual([
      'beforeFlush#1 created=book updated=1',
      // Each round: beforeFlush, then the per-entity hooks of every entity not seen yet, its own
      // creations included; the round changed things, so beforeFlush runs again with what is new.
      'book.beforeCreate Notes',
      'outbox.beforeCreate book.created',
      'author.beforeUpdate name',
      'beforeFlush#2 created=outbox updated=0',
      'afterCommit inserted=2',
    ])
    expect(report).toMatchObject({ inserted: 2, updated: 1, roundTrips: 1, afterCommitErrors: [] })
    expect(counter.read().roundTrips).toBe(1)
    expect(await count('outbox', `topic = 'book.created' and book_id = ${book.id}`)).toBe(1)
    expect(await count('book', `updated_at = 'epoch' and id = ${book.id}`)).toBe(1)
  })

  test("upserts: beforeFlush sees them in upserted, beforeUpsert runs once for each, a hook's own upsert is seen in the next round", async () => {
    const calls: string[] = []
    const { root, counter } = await setup(driver, {
      beforeFlush(em, { created, upserted, run }) {
        const names = upserted.map((t) => `${em.tableOf(t)}:${t.name}`).join(',')
        calls.push(`beforeFlush#${run} created=${created.length} upserted=${names}`)
        if (run === 1) em.upsert('tag', { name: `hooked-${driver}` }, { conflict: ['name'], update: [] })
      },
      tables: {
        tag: {
          beforeCreate: () => void calls.push('tag.beforeCreate'),
          beforeUpsert(tag) {
            calls.push(`tag.beforeUpsert ${tag.name}`)
            tag.updated_at = new Date(0)
          },
        },
      },
    })
    const em = root.fork()
    const poetry = em.upsert('tag', { name: `poetry-${driver}` }, { conflict: ['name'], update: [] })
    // A second upsert of the same name replaces the first: the hooks see, and the flush sends, the last.
    const again = em.upsert('tag', { name: `poetry-${driver}` }, { conflict: ['name'], update: [] })
    counter.reset()
    const report = await em.flush()
    expect(calls).toEqual([
      `beforeFlush#1 created=0 upserted=tag:poetry-${driver}`,
      `tag.beforeUpsert poetry-${driver}`,
      `tag.beforeUpsert hooked-${driver}`,
      `beforeFlush#2 created=0 upserted=tag:hooked-${driver}`,
    ])
    expect(report).toMatchObject({ upserted: 2, roundTrips: 1 })
    expect(counter.read().roundTrips).toBe(1)
    expect([em.stateOf(poetry), em.stateOf(again)]).toEqual(['detached', 'managed'])
    expect(await count('tag', `name like '%-${driver}' and updated_at = 'epoch'`)).toBe(2)
  })

  test('a hook that throws: HOOK_FAILED, nothing sent, the unit of work as it was; the retry runs the hooks once', async () => {
    let fail = true
    const { root, counter } = await setup(driver, {
      beforeFlush(em, { created }) {
        for (const a of created.filter((e) => em.tableOf(e) === 'author'))
          em.create('outbox', { topic: 'author.created', author_id: a })
      },
      tables: {
        author: {
          beforeCreate(a) {
            a.updated_at = new Date(1000)
            if (fail) throw new Error('not today')
          },
        },
      },
    })
    const em = root.fork()
    const a = em.create('author', { name: 'Hook' })
    const pending = em.pending
    counter.reset()
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'HOOK_FAILED')).toBe(true)
    expect((error as Error).message).toContain('author.beforeCreate')
    expect(((error as Error).cause as Error).message).toBe('not today')
    expect(counter.read().roundTrips).toBe(0)
    expect(em.pending).toEqual(pending)
    expect(a.updated_at).toBeUndefined()
    fail = false
    await em.flush()
    expect(await count('outbox', `topic = 'author.created' and author_id = ${a.id}`)).toBe(1)
    expect(a.updated_at).toEqual(new Date(1000))
  })

  test('a flush that fails after the hooks ran takes back their changes: the retry writes one outbox row', async () => {
    const { root } = await setup(driver, {
      beforeFlush(em, { created }) {
        for (const b of created.filter((e) => em.tableOf(e) === 'book'))
          em.create('outbox', { topic: 'book.retry', book_id: b })
      },
    })
    const em = root.fork()
    const a = em.create('author', { name: 'Retry' })
    const b = em.create('book', { author_id: a, title: 'bad' })
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
    expect(em.pending).toEqual({ inserts: 2, updates: 0, deletes: 0, upserts: 0 })
    b.title = 'good'
    await em.flush()
    expect(await count('outbox', `topic = 'book.retry' and book_id = ${b.id}`)).toBe(1)
  })

  test.each(['a synchronous', 'an asynchronous'])(
    "%s hook, a flush that fails: the application's own changes made while the hooks ran stay pending, the hooks' are taken back",
    async (kind) => {
      const slow = kind === 'an asynchronous'
      const tag = `${kind} ${driver}`
      const { root } = await setup(driver, {
        async beforeFlush(em, { created }) {
          if (slow) await new Promise((resolve) => setTimeout(resolve, 30))
          for (const b of created.filter((e) => em.tableOf(e) === 'book'))
            em.create('outbox', { topic: 'book.own', book_id: b })
        },
        tables: {
          author: {
            async beforeUpdate(author) {
              if (slow) await new Promise((resolve) => setImmediate(resolve))
              author.updated_at = new Date(0)
            },
          },
        },
      })
      const seed = root.fork()
      const [kept, gone, renamed] = [0, 1, 2].map((i) => seed.create('author', { name: `own ${tag} ${i}` }))
      await seed.flush()
      const em = root.fork()
      const [one, two, three] = await Promise.all(
        [kept, gone, renamed].map((a) => em.load('author', a!.id as number)),
      )
      three!.name = `renamed ${tag}` // an update: its beforeUpdate sets updated_at
      const b = em.create('book', { author_id: one!, title: 'bad' }) // the check rejects the flush
      const flushing = em.flush()
      // The application's own changes while the hooks run: right after the call, and from another task.
      one!.name = `assigned ${tag}`
      const later = new Promise<void>((resolve) =>
        setTimeout(() => {
          em.create('author', { name: `created ${tag}` })
          em.remove(two!)
          resolve()
        }, 5),
      )
      const error = await flushing.catch((e: unknown) => e)
      await later
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION'), String(error)).toBe(true)
      // The hooks' changes taken back: no outbox row pending, updated_at as it was.
      expect(three!.updated_at).toBeNull()
      expect(one!.name).toBe(`assigned ${tag}`)
      expect(em.pending).toEqual({ inserts: 2, updates: 2, deletes: 1, upserts: 0 })
      b.title = 'good'
      await em.flush()
      expect(await count('author', `name = 'assigned ${tag}' and id = ${one!.id}`)).toBe(1)
      expect(await count('author', `name = 'created ${tag}'`)).toBe(1)
      expect(await count('author', `id = ${two!.id}`)).toBe(0)
      expect(await count('outbox', `topic = 'book.own' and book_id = ${b.id}`)).toBe(1)
      expect(await count('author', `id = ${three!.id} and updated_at = 'epoch'`)).toBe(1)
    },
  )

  test(`a beforeFlush that changes something on every run: HOOK_LOOP after ${MAX_HOOK_ROUNDS} rounds, nothing sent`, async () => {
    let runs = 0
    const { root, counter } = await setup(driver, {
      beforeFlush(em) {
        runs++
        em.create('author', { name: `loop ${runs}` })
      },
    })
    const em = root.fork()
    em.create('author', { name: 'first' })
    counter.reset()
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'HOOK_LOOP')).toBe(true)
    expect(runs).toBe(MAX_HOOK_ROUNDS)
    expect(counter.read().roundTrips).toBe(0)
    expect(em.pending.inserts).toBe(1)
    expect(await count('author', `name like 'loop %'`)).toBe(0)
  })

  test('afterCommit errors do not undo the commit: reported apart in the report', async () => {
    const { root } = await setup(driver, {
      afterCommit() {
        throw new Error('mailer down')
      },
    })
    const em = root.fork()
    const a = em.create('author', { name: 'After' })
    const report = await em.flush()
    expect(report.afterCommitErrors).toHaveLength(1)
    expect(report.afterCommitErrors?.[0]?.code).toBe('HOOK_FAILED')
    expect(report.afterCommitErrors?.[0]?.message).toContain('committed')
    expect(em.stateOf(a)).toBe('managed')
    expect(await count('author', `id = ${a.id}`)).toBe(1)
  })
})

test('bad hooks are INVALID_CONFIG at connect', async () => {
  const c = db.client('postgres.js', { max: 1 })
  for (const hooks of [
    5,
    { beforeFlush: 'x' },
    { after: () => {} },
    { tables: { nope: {} } },
    { tables: { book: { beforeSave() {} } } },
    { tables: { book: { beforeUpsert: 'x' } } },
    { tables: { book: { beforeCreate: 1 } } },
  ]) {
    const error = await EntityManager.connect(c.client, { hooks } as never).catch((e: unknown) => e)
    expect(isPipeflushError(error, 'INVALID_CONFIG'), JSON.stringify(hooks)).toBe(true)
  }
})
