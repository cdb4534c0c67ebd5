import { describe, expect, it } from 'vitest'
import { provisionalIds } from '../../../src/ids/assign-ids.ts'
import { rebindFlush } from '../../../src/ids/rebind-plan.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import type { FlushPlan } from '../../../src/plan/types.ts'
import { type PendingChanges, toChangeSet } from '../../../src/track/changes.ts'
import type { Entity, EntityState } from '../../../src/track/entity-state.ts'
import { rowOf, UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'
import { BOOK_1, BOOK_2, shop, table } from '../track/fixtures.ts'

/** A unit of work to fill with new rows; `add` returns the entity (to reference) and its state. */
function unit() {
  const uow = new UnitOfWork()
  const add = (key: string, values: Record<string, unknown>): { entity: Entity; state: EntityState } => {
    const state = uow.add(table(key), rowOf(values), 'new')
    return { entity: state.entity, state }
  }
  return { uow, add }
}

/**
 * Plans `uow`'s inserts with placeholders, gives the rows without ids the ids `idFor` picks (in row
 * order), then rebinds; also plans again from scratch. Answers both.
 */
function both(uow: UnitOfWork, idFor: (i: number, state: EntityState) => unknown) {
  const pending: PendingChanges = uow.pending()
  const rows = [...pending.inserts]
  const provisional = provisionalIds(rows)
  const changes = toChangeSet(pending, uow, provisional)
  const plan = planFlush(shop, changes)
  const sent = uow.sentValues(pending, changes)
  let i = 0
  for (const state of rows) {
    if (provisional.has(state)) state.row[state.table.primaryKey[0]!] = idFor(i++, state)
  }
  const rebound = rebindFlush(plan, sent, pending, provisional)
  const expected = () => {
    const again = toChangeSet(pending, uow)
    return { plan: planFlush(shop, again), sent: uow.sentValues(pending, again) }
  }
  return { rebound, expected, placeholders: plan }
}

/** Shuffled ids from `base`: the real ids need not follow the rows' order. */
function shuffledIds(n: number, base: number, text: boolean): unknown[] {
  const ids = Array.from({ length: n }, (_, i) => base + ((i * 7919) % n))
  return ids.map((id) => (text ? String(id) : id))
}

/** A book row with every column given, its author as a plain key. */
function plainBook(id: string, authorId: string): Record<string, unknown> {
  return {
    id,
    author_id: authorId,
    isbn: null,
    title: null,
    tags: [],
    meta: null,
    cover: null,
    published_at: null,
  }
}

function kinds(plan: FlushPlan): string[][] {
  return plan.waves.map((w) => w.map((s) => `${s.kind} ${s.table}`))
}

describe('rebindFlush', () => {
  it('gives what planning again gives: parents and children, references and plain keys, ids in any order', () => {
    const { uow, add } = unit()
    const authors = Array.from({ length: 300 }, (_, i) => add('author', { name: `a${i}`, bio: null }))
    const ids = shuffledIds(300, 1000, true)
    add('author', { id: '7', name: 'given', bio: null }) // a key the application gave
    for (let i = 0; i < 40; i++) {
      add('book', {
        id: `0190a8c2-0000-7000-8000-${String(i).padStart(12, '0')}`,
        author_id: i % 4 === 0 ? '7' : authors[(i * 13) % 300]!.entity,
        title: i % 3 === 0 ? null : `t${i}`,
        tags: [],
        meta: { n: i },
        cover: null,
        published_at: null,
        isbn: `isbn-${i}`,
      })
    }
    // A reference in a column without a foreign key (it stands for the author's key).
    add('review', { id: 1, book_isbn: null, loose_ref: authors[5]!.entity })
    const { rebound, expected, placeholders } = both(uow, (i) => ids[i])
    expect(rebound).toBeDefined()
    expect(kinds(placeholders)).toEqual([['insert author', 'insert review'], ['insert book']])
    expect(rebound!.plan).toEqual(expected().plan)
    expect(rebound!.sent).toEqual(expected().sent)
  })

  it('int4, int2 and numeric keys from sequences', () => {
    const { uow, add } = unit()
    for (let i = 0; i < 50; i++) {
      add('tag', { name: `tag ${i}` })
      add('small', { n: i })
      add('counter', { n: i })
    }
    const { rebound, expected } = both(uow, (i, state) =>
      state.table.key === 'counter' ? String(900 - i) : 30_000 - i,
    )
    expect(rebound?.plan).toEqual(expected().plan)
    expect(rebound?.sent).toEqual(expected().sent)
  })

  it('ids drawn in ascending order (rows turned round, not sorted), with and without a key the application gave', () => {
    for (const given of [false, true]) {
      const { uow, add } = unit()
      for (let i = 0; i < 500; i++) {
        add('author', { name: `a${i}`, bio: null })
        add('tag', { name: `tag ${i}` })
      }
      if (given) add('author', { id: '251', name: 'given', bio: null }) // inside the ids' range, not one of them
      const { rebound, expected } = both(uow, (i, state) =>
        state.table.key === 'author' ? String(100 + Math.floor(i / 2) * 3) : 5000 + i,
      )
      expect(rebound).toBeDefined()
      expect(rebound?.plan).toEqual(expected().plan)
      expect(rebound?.sent).toEqual(expected().sent)
      const keys = rebound!.plan.waves
        .flat()
        .find((s) => s.table === 'author')!
        .keys.map(Number)
      expect(keys).toEqual([...keys].sort((a, b) => a - b))
    }
  })

  it('plans again (undefined) when a value the application gave has a placeholder text or a real id text', () => {
    const placeholderFk = unit()
    placeholderFk.add('author', { name: 'a', bio: null })
    placeholderFk.add('author', { name: 'b', bio: null })
    placeholderFk.add('book', plainBook(BOOK_1, '-2'))
    expect(both(placeholderFk.uow, (i) => String(100 + i)).rebound).toBeUndefined()

    const realKey = unit()
    realKey.add('author', { name: 'a', bio: null })
    realKey.add('author', { id: '101', name: 'given', bio: null }) // the id the other row gets
    const repeated = both(realKey.uow, (i) => String(101 + i))
    expect(repeated.rebound).toBeUndefined()
    // Planning again finds the repeated key, as it must.
    expect(() => repeated.expected()).toThrow(expect.objectContaining({ code: 'DUPLICATE_KEY' }))

    const realFk = unit()
    realFk.add('author', { name: 'a', bio: null })
    realFk.add('book', plainBook(BOOK_2, '55'))
    expect(both(realFk.uow, () => '55').rebound).toBeUndefined()
  })

  it('plans again for an entity as a key, several statements of a table, updates, or nothing to rebind', () => {
    const keyedByParent = unit()
    const author = keyedByParent.add('author', { name: 'a', bio: null })
    keyedByParent.add('profile', { author_id: author.entity, bio: 'x' })
    expect(both(keyedByParent.uow, () => '1').rebound).toBeUndefined()

    const twoShapes = unit()
    twoShapes.add('author', { name: 'a', bio: null })
    twoShapes.add('author', { name: 'b', bio: null, version: 3 })
    expect(both(twoShapes.uow, (i) => String(i + 1)).rebound).toBeUndefined()

    const withUpdate = unit()
    withUpdate.add('author', { name: 'a', bio: null })
    const managed = withUpdate.uow.add(table('tag'), rowOf({ id: 9, name: 'old' }), 'managed')
    managed.entity['name'] = 'new'
    expect(both(withUpdate.uow, () => '1').rebound).toBeUndefined()

    const givenKeys = unit()
    givenKeys.add('author', { id: '1', name: 'a', bio: null })
    expect(both(givenKeys.uow, () => '1').rebound).toBeUndefined()
  })

  it('leaves `sent` alone when it answers undefined', () => {
    const { uow, add } = unit()
    add('author', { name: 'a', bio: null })
    add('book', plainBook(BOOK_1, '-1'))
    const pending = uow.pending()
    const provisional = provisionalIds([...pending.inserts])
    const changes = toChangeSet(pending, uow, provisional)
    const sent = uow.sentValues(pending, changes)
    const before = JSON.stringify([...sent.values()])
    for (const state of pending.inserts) if (provisional.has(state)) state.row['id'] = '5'
    expect(rebindFlush(planFlush(shop, changes), sent, pending, provisional)).toBeUndefined()
    expect(JSON.stringify([...sent.values()])).toBe(before)
  })
})
