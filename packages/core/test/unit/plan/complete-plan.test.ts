import { describe, expect, it } from 'vitest'
import { completePlan, givesAssignedId } from '../../../src/plan/complete-plan.ts'
import type { IdSource } from '../../../src/plan/draft.ts'
import { draftFlush } from '../../../src/plan/draft-flush.ts'
import { pendingInput } from '../../../src/plan/pending-input.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import type { FlushPlan } from '../../../src/plan/types.ts'
import type { PendingChanges } from '../../../src/track/changes.ts'
import type { Entity, EntityState } from '../../../src/track/entity-state.ts'
import { rowOf } from '../../../src/track/row.ts'
import { UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'
import { sentValues, toChangeSet } from '../../support/change-set.ts'
import { BOOK_1, BOOK_2, shop, table } from '../track/fixtures.ts'

// A flush of new rows is drafted before its ids are known (their key cells, and the cells referring
// to them, are slots pointing at the entities), then completed once the ids are assigned, in any
// order. What it sends must be what planning again from scratch with those ids makes: every id,
// every reference between new rows, the rows sorted, what it sends of each entity.

/** A unit of work to fill with new rows; `add` returns the entity (to reference) and its state. */
function unit() {
  const uow = new UnitOfWork()
  const add = (key: string, values: Record<string, unknown>): { entity: Entity; state: EntityState } => {
    const state = uow.add(table(key), rowOf(values), 'new')
    return { entity: state.entity, state }
  }
  return { uow, add }
}

/** The ids the rows hold once assigned. */
const assigned: IdSource = (state, column) => state.row[column]

/**
 * Drafts `uow`'s flush, gives the rows without ids the ids `idFor` picks (in row order), then
 * completes it (drafting again when a value given is one of those ids, as a flush does); also plans
 * again from scratch. Answers both, and whether the flush drafted again.
 */
function both(uow: UnitOfWork, idFor: (i: number, state: EntityState) => unknown) {
  const pending: PendingChanges = uow.pending()
  const rows = [...pending.inserts]
  let draft = draftFlush(shop, pendingInput(pending, uow))
  const waves = draft.waves.map((wave) =>
    wave.map((s) => `${draft.statements[s]!.kind} ${draft.statements[s]!.table.key}`),
  )
  let i = 0
  for (const state of rows) {
    const key = state.table.primaryKey[0]!
    if (state.row[key] === undefined || state.row[key] === null) state.row[key] = idFor(i++, state)
  }
  const again = givesAssignedId(draft, assigned)
  if (again) draft = draftFlush(shop, pendingInput(pending, uow))
  const completed = completePlan(draft, assigned, {})
  const expected = () => {
    const changes = toChangeSet(pending, uow)
    return { plan: planFlush(shop, changes), sent: sentValues(uow, pending, changes) }
  }
  return { completed: { plan: completed.plan, sent: new Map(completed.sent) }, expected, waves, again }
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

describe('completePlan of a flush drafted before its ids', () => {
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
    const { completed, expected, waves } = both(uow, (i) => ids[i])
    expect(waves).toEqual([['insert author', 'insert review'], ['insert book']])
    expect(kinds(completed.plan)).toEqual(waves)
    expect(completed.plan).toEqual(expected().plan)
    expect(completed.sent).toEqual(expected().sent)
  })

  it('int4, int2 and numeric keys from sequences', () => {
    const { uow, add } = unit()
    for (let i = 0; i < 50; i++) {
      add('tag', { name: `tag ${i}` })
      add('small', { n: i })
      add('counter', { n: i })
    }
    const { completed, expected } = both(uow, (i, state) =>
      state.table.key === 'counter' ? String(900 - i) : 30_000 - i,
    )
    expect(completed.plan).toEqual(expected().plan)
    expect(completed.sent).toEqual(expected().sent)
  })

  it('ids drawn in ascending order (rows turned round, not sorted), with and without a key the application gave', () => {
    for (const given of [false, true]) {
      const { uow, add } = unit()
      for (let i = 0; i < 500; i++) {
        add('author', { name: `a${i}`, bio: null })
        add('tag', { name: `tag ${i}` })
      }
      if (given) add('author', { id: '251', name: 'given', bio: null }) // inside the ids' range, not one of them
      const { completed, expected, again } = both(uow, (i, state) =>
        state.table.key === 'author' ? String(100 + Math.floor(i / 2) * 3) : 5000 + i,
      )
      expect(again).toBe(false)
      expect(completed.plan).toEqual(expected().plan)
      expect(completed.sent).toEqual(expected().sent)
      const keys = completed.plan.waves
        .flat()
        .find((s) => s.table === 'author')!
        .keys.map(Number)
      expect(keys).toEqual([...keys].sort((a, b) => a - b))
    }
  })

  it('drafts again when a value the application gave is one of the ids assigned, and only then', () => {
    // A value that looks like a placeholder is a value like any other.
    const placeholderFk = unit()
    placeholderFk.add('author', { name: 'a', bio: null })
    placeholderFk.add('author', { name: 'b', bio: null })
    placeholderFk.add('book', plainBook(BOOK_1, '-2'))
    const placeholder = both(placeholderFk.uow, (i) => String(100 + i))
    expect(placeholder.again).toBe(false)
    expect(placeholder.completed.plan).toEqual(placeholder.expected().plan)

    const realKey = unit()
    realKey.add('author', { name: 'a', bio: null })
    realKey.add('author', { id: '101', name: 'given', bio: null }) // the id the other row gets
    // Drafting again finds the repeated key, as planning again does.
    expect(() => both(realKey.uow, (i) => String(101 + i))).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_KEY' }),
    )

    const realFk = unit()
    realFk.add('author', { name: 'a', bio: null })
    realFk.add('book', plainBook(BOOK_2, '55'))
    const fk = both(realFk.uow, () => '55')
    expect(fk.again).toBe(true)
    expect(fk.completed.plan).toEqual(fk.expected().plan)
    expect(kinds(fk.completed.plan)).toEqual([['insert author'], ['insert book']])
  })

  it('completes an entity as a key, several statements of a table, updates, and nothing to assign as planning again does', () => {
    const cases: [string, UnitOfWork, (i: number) => unknown][] = []
    const keyedByParent = unit()
    const author = keyedByParent.add('author', { name: 'a', bio: null })
    keyedByParent.add('profile', { author_id: author.entity, bio: 'x' })
    cases.push(['an entity as a key', keyedByParent.uow, () => '1'])

    const twoShapes = unit()
    twoShapes.add('author', { name: 'a', bio: null })
    twoShapes.add('author', { name: 'b', bio: null, version: 3 })
    cases.push(['two statements of a table', twoShapes.uow, (i) => String(i + 1)])

    const withUpdate = unit()
    withUpdate.add('author', { name: 'a', bio: null })
    const managed = withUpdate.uow.add(table('tag'), rowOf({ id: 9, name: 'old' }), 'managed')
    managed.entity['name'] = 'new'
    cases.push(['an update', withUpdate.uow, () => '1'])

    const givenKeys = unit()
    givenKeys.add('author', { id: '1', name: 'a', bio: null })
    cases.push(['every key given', givenKeys.uow, () => '1'])
    for (const [name, uow, idFor] of cases) {
      const { completed, expected } = both(uow, idFor)
      expect(completed.plan, name).toEqual(expected().plan)
      expect(completed.sent, name).toEqual(expected().sent)
    }
  })

  it('sends each entity its own values when rows of several statements interleave, a few statements and many', () => {
    // What a flush sends of each entity is taken in the input's order from the statements holding
    // them: walked statement by statement for a few, looked up by row past that.
    const optional = ['title', 'tags', 'meta', 'cover', 'published_at', 'isbn']
    for (const shapes of [2, 20]) {
      const { uow, add } = unit()
      for (let i = 0; i < 3 * shapes; i++) {
        // Two column sets of authors, and `shapes` of books: a statement each, their rows interleaved.
        const author =
          i % 2 === 0
            ? add('author', { name: `a${i}`, bio: null, version: 2 })
            : add('author', { name: `b${i}` })
        const book: Record<string, unknown> = {
          id: `0190a8c2-0000-7000-8000-${String(i).padStart(12, '0')}`,
          author_id: author.entity,
        }
        // The columns of bit set `i % shapes`, each given a value or null.
        optional.forEach((name, bit) => {
          if (((i % shapes) >> bit) & 1)
            book[name] = name === 'tags' ? [`t${i}`] : name === 'isbn' ? `isbn ${i}` : null
        })
        add('book', book)
        add('tag', { name: `tag ${i}` })
      }
      // Updates of two tables, interleaved, one setting nothing (no statement holds it).
      for (let i = 0; i < 6; i++) {
        const key = i % 2 === 0 ? 'tag' : 'person'
        const state = uow.add(
          table(key),
          rowOf(key === 'tag' ? { id: 100 + i, name: `old ${i}` } : { id: 100 + i, born: null }),
          'managed',
        )
        if (key === 'tag') state.entity['name'] = `new ${i}`
        else if (i !== 3) state.entity['born'] = `2000-01-0${i}`
      }
      const { completed, expected } = both(uow, (i, state) =>
        state.table.key === 'author' ? String(1000 + i) : 1000 + i,
      )
      expect(completed.plan).toEqual(expected().plan)
      expect(completed.sent).toEqual(expected().sent)
      expect(completed.sent.size).toBe(expected().sent.size)
      const statements = completed.plan.waves.flat()
      expect(statements.filter((s) => s.table === 'book').length).toBe(shapes)
    }
  })

  it('orders new rows referencing new rows through a chain of keys: an entity as a key, referenced in turn', () => {
    const { uow, add } = unit()
    for (let i = 0; i < 3; i++) {
      const author = add('author', { name: `a${i}`, bio: null })
      const profile = add('profile', { author_id: author.entity, bio: `p${i}` })
      add('setting', { id: i + 1, profile_id: profile.entity })
    }
    const { completed, expected, waves } = both(uow, (i) => String(10 + i))
    expect(waves).toEqual([['insert author'], ['insert profile'], ['insert setting']])
    expect(completed.plan).toEqual(expected().plan)
    expect(completed.sent).toEqual(expected().sent)
  })

  it('writes each flush the columns of its own rows when a table is flushed again, in the same shape or another', () => {
    // A table's last row shape and its columns are kept between flushes: the next flush's rows of that
    // shape reuse them, any other shape finds its own.
    const shapes: Record<string, unknown>[] = [
      { name: 'a' },
      { name: 'b' },
      { name: 'c', bio: 'x' },
      { id: '5', name: 'd' },
      { name: 'e' },
      { bio: 'y', name: 'f' },
      { name: 'g', bio: null, version: 4 },
    ]
    let flushed = 0
    for (const values of shapes) {
      const { uow, add } = unit()
      add('author', values)
      add('author', {
        ...values,
        name: `${values['name'] as string}2`,
        ...('id' in values ? { id: '6' } : {}),
      })
      const { completed, expected } = both(uow, (i) => String(100 + flushed * 10 + i))
      flushed++
      expect(completed.plan, JSON.stringify(values)).toEqual(expected().plan)
      expect(completed.sent, JSON.stringify(values)).toEqual(expected().sent)
      // The columns a later flush may share cannot be changed through a plan.
      const statement = completed.plan.waves[0]![0]!
      expect(() => (statement.columns as string[]).push('bio')).toThrow(TypeError)
    }
  })

  it('leaves the entities alone while drafting: a row without id keeps none until assigned', () => {
    const { uow, add } = unit()
    const a = add('author', { name: 'a', bio: null })
    add('book', plainBook(BOOK_1, '-1'))
    const pending = uow.pending()
    const before = JSON.stringify(pending.inserts.map((s) => s.row))
    const draft = draftFlush(shop, pendingInput(pending, uow))
    expect(JSON.stringify(pending.inserts.map((s) => s.row))).toBe(before)
    expect(Object.keys(a.state.row)).toEqual(['name', 'bio'])
    a.state.row['id'] = '5'
    const { plan } = completePlan(draft, assigned, {})
    expect(plan).toEqual(planFlush(shop, toChangeSet(pending, uow)))
  })
})
