import { readdirSync, readFileSync } from 'node:fs'
import { join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { TableModel } from '../../../src/model/model.ts'
import { type EntityState, stateOf } from '../../../src/track/entity-state.ts'
import { rowOf } from '../../../src/track/row.ts'
import { canonicalText } from '../../../src/unit-of-work/referring-index.ts'
import { UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'
import { table } from '../track/fixtures.ts'

const AUTHOR = table('author')
const BOOK = table('book')
const SHELF = table('shelf')
const COPY = table('copy')
const AUTHOR_ID: readonly string[] = ['author_id']
const ROOM_SLOT: readonly string[] = ['room', 'slot']

/**
 * What the index must answer, found the slow way: every entity of `referring` the unit of work holds,
 * in its order, whose columns hold `target` (one column) or values of the text of `target`'s columns.
 */
function scanned(
  uow: UnitOfWork,
  referring: TableModel,
  columns: readonly string[],
  target: EntityState,
  targetColumns: readonly string[],
): EntityState[] {
  const mine = canonicalText(target.table, targetColumns, target.row)
  return uow.statesOf(referring.key).filter((s) => {
    const ref = columns.length === 1 ? stateOf(s.row[columns[0]!]) : undefined
    if (ref !== undefined) return ref === target
    return mine !== null && canonicalText(referring, columns, s.row) === mine
  })
}

/** A book's row: its id and what its `author_id` holds, every other column empty. */
function bookRow(id: string, authorId: unknown): Record<string, unknown> {
  const empty = { title: null, tags: [], meta: null, cover: null, published_at: null, isbn: null }
  return rowOf({ id, author_id: authorId, ...empty })
}

/** A small seeded generator (the sweep is the same at every run). */
function prng(seed: number) {
  let x = seed >>> 0 || 1
  const next = () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  }
}

describe('ReferringIndex', () => {
  it('answers what a scan of the unit of work answers, through 6,000 steps of every kind of change', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const rng = prng(seed)
      const uow = new UnitOfWork()
      const authors = [1, 2, 3, 4].map((id) =>
        uow.add(AUTHOR, rowOf({ id, name: `a${id}`, bio: null, version: 1 }), 'managed'),
      )
      const books: EntityState[] = []
      let next = 1
      // An author's key as a book may hold it: a number, a bigint, a text, the author entity, or nothing.
      const reference = (): unknown => {
        const a = rng.pick(authors)
        const id = Number(a.row['id'])
        return rng.pick([id, BigInt(id), String(id), a.entity, null])
      }
      const book = (status: 'new' | 'managed') => {
        const id = `0190a8c2-0000-7000-8000-${String(next++).padStart(12, '0')}`
        books.push(uow.add(BOOK, bookRow(id, reference()), status))
      }
      // Whether a flush is under way: only then are rows and statuses written past the entities.
      let flushing = false
      for (let step = 0; step < 1_000; step++) {
        const kind = rng.int(8)
        const some = books.length > 0 ? rng.pick(books) : undefined
        if (kind === 0 || some === undefined) book('managed')
        else if (kind === 1) book('new')
        else if (kind === 2 && some.status !== 'removed' && some.status !== 'detached') {
          // An assignment through the entity, as the application makes it.
          ;(some.entity as Record<string, unknown>)['author_id'] = reference() ?? 1
        } else if (kind === 3 && (some.status === 'managed' || some.status === 'new')) uow.remove(some)
        else if (kind === 4 && flushing) {
          // A value written past the entity (as a flush writes an id, or what the server filled).
          some.row['author_id'] = reference()
        } else if (kind === 5 && flushing && some.status === 'removed') {
          // A status changed past the unit of work's methods (as a failed flush's hooks are undone).
          some.status = 'managed'
        } else if (kind === 6) {
          if (flushing) uow.endFlush()
          else uow.beginFlush()
          flushing = !flushing
        }
        // Read at every other step or so: changes also pile up between reads.
        if (rng.int(2) === 0) continue
        const target = rng.pick(authors)
        const mine = canonicalText(AUTHOR, ['id'], target.row)
        const index = uow.referring(BOOK, AUTHOR_ID)
        expect(index.referring(target, mine)).toEqual(scanned(uow, BOOK, AUTHOR_ID, target, ['id']))
        if (mine !== null) {
          const first = scanned(uow, BOOK, AUTHOR_ID, target, ['id']).find(
            (s) => stateOf(s.row['author_id']) === undefined,
          )
          expect(index.firstWithText(mine)).toBe(first)
        }
      }
    }
  })

  it('writes rows and statuses past the entities only in the files a flush runs, besides the unit of work', () => {
    // A relation index skips its check while nothing could have changed its rows: no edit, no flush
    // begun or ended (see UnitOfWork.beginFlush). A file that writes a tracked row's value or an
    // entity's status must be one of these, each for its reason; another must count its writes so.
    const writers = {
      'flush/server-filled.ts': 'writes a row of its own (what the server filled), not an entity row',
      'ids/assign-ids.ts': 'gives new rows their ids, in a flush',
      'track/entity-proxy.ts': 'the entity: its status when made (added to the unit of work)',
      'unit-of-work/apply-flushed.ts': 'settles a committed flush, in it',
      'unit-of-work/checkpoint.ts': "takes the hooks' changes back, in a failed flush",
      'unit-of-work/settle-upserts.ts': 'settles upserts, in a flush',
      'unit-of-work/state.ts': 'removes an entity (an edit)',
      'unit-of-work/unit-of-work.ts': 'clears the unit of work (the identity map and new entities change)',
    }
    const root = fileURLToPath(new URL('../../../src/', import.meta.url))
    const writing = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /\.row\[[^\]]+\] *= [^=]|\.status *= [^=]/.test(readFileSync(join(root, f), 'utf8')))
      .map((f) => f.split(sep).join('/'))
      .sort()
    expect(writing).toEqual(Object.keys(writers).sort())
  })

  it('groups rows by the text of several columns, and follows a cleared unit of work', () => {
    const uow = new UnitOfWork()
    const a = uow.add(SHELF, rowOf({ room: 'north', slot: 1 }), 'managed')
    const b = uow.add(SHELF, rowOf({ room: 'north', slot: 2 }), 'managed')
    const copies = [
      uow.add(COPY, rowOf({ id: 1, room: 'north', slot: 1 }), 'managed'),
      uow.add(COPY, rowOf({ id: 2, room: 'north', slot: 2 }), 'managed'),
      uow.add(COPY, rowOf({ id: 3, room: 'north', slot: 1 }), 'new'),
      uow.add(COPY, rowOf({ id: 4, room: null, slot: 1 }), 'managed'),
    ]
    const index = uow.referring(COPY, ROOM_SLOT)
    const text = (s: EntityState) => canonicalText(SHELF, ROOM_SLOT, s.row)
    expect(index.referring(a, text(a))).toEqual([copies[0], copies[2]])
    expect(index.referring(b, text(b))).toEqual([copies[1]])
    uow.beginFlush() // a flush writes past the entity (what the server filled), then ends
    copies[3]!.row['room'] = 'north'
    expect(index.referring(a, text(a))).toEqual([copies[0], copies[3], copies[2]])
    copies[3]!.row['room'] = null
    uow.endFlush()
    expect(index.referring(a, text(a))).toEqual([copies[0], copies[2]])
    uow.clear()
    expect(index.referring(a, text(a))).toEqual([])
  })

  it('throws a value that has no key text at every read, and answers once it is mended', () => {
    const uow = new UnitOfWork()
    const author = uow.add(AUTHOR, rowOf({ id: 1, name: 'Ada', bio: null, version: 1 }), 'managed')
    const bad = uow.add(BOOK, bookRow('0190a8c2-0000-7000-8000-000000000001', 1.5), 'managed')
    const index = uow.referring(BOOK, AUTHOR_ID)
    for (let i = 0; i < 2; i++) expect(() => index.referring(author, '1')).toThrow(/book\.author_id/)
    ;(bad.entity as Record<string, unknown>)['author_id'] = 1
    expect(index.referring(author, '1')).toEqual([bad])
  })

  it('is one index per table and columns array', () => {
    const uow = new UnitOfWork()
    expect(uow.referring(BOOK, AUTHOR_ID)).toBe(uow.referring(BOOK, AUTHOR_ID))
    expect(uow.referring(BOOK, AUTHOR_ID)).not.toBe(uow.referring(COPY, ROOM_SLOT))
  })
})
