import { describe, expect, it } from 'vitest'
import { assignIds, idNeed, placeholderIn, provisionalIds } from '../../../src/ids/assign-ids.ts'
import { IdAllocator } from '../../../src/ids/id-allocator.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { BOOK_1, table, tracked } from '../track/fixtures.ts'
import { FakeSequences } from './fake-sequences.ts'

const AUTHOR_SEQ = '"public"."author_id_seq"'
const TAG_SEQ = '"public"."tag_id_seq"'
const COUNTER_SEQ = '"public"."counter_id_seq"'
const SMALL_SEQ = '"public"."small_id_seq"'

function fresh(key: string, values: Record<string, unknown> = {}) {
  return tracked(table(key), values, 'new').state
}

/** An allocator holding `counts` ids per sequence (1, 2, ... each; names are not parsed here). */
async function poolOf(counts: Readonly<Record<string, number>>): Promise<IdAllocator> {
  const ids = new IdAllocator({ blockSize: 1 })
  await ids.fill(
    async () => {
      const rows: { seq: string; ids: string }[] = []
      for (const [seq, n] of Object.entries(counts))
        rows.push({ seq, ids: Array.from({ length: n }, (_, i) => String(i + 1)).join(',') })
      return rows
    },
    new Map(Object.entries(counts)),
  )
  return ids
}

/** The sequence whose id a new row `state` needs (a key column a sequence fills, no value in it), or null. */
const sequenceToFill = (state: ReturnType<typeof fresh>) => [...idNeed([state]).keys()][0] ?? null

describe('the sequence a new row draws its key from', () => {
  it("is the key column's sequence for a new row without a key", () => {
    expect(sequenceToFill(fresh('author', { name: 'Ada' }))).toBe(AUTHOR_SEQ)
    expect(sequenceToFill(fresh('author', { id: null }))).toBe(AUTHOR_SEQ)
    expect(sequenceToFill(fresh('tag'))).toBe(TAG_SEQ)
    expect(sequenceToFill(fresh('counter'))).toBe(COUNTER_SEQ)
    expect(sequenceToFill(fresh('small'))).toBe(SMALL_SEQ)
  })

  it('is null for a key given, a key without sequence (uuid) and a composite key', () => {
    expect(sequenceToFill(fresh('author', { id: '5' }))).toBeNull()
    expect(sequenceToFill(fresh('author', { id: 0 }))).toBeNull()
    expect(sequenceToFill(fresh('book'))).toBeNull()
    expect(sequenceToFill(fresh('book_tag'))).toBeNull()
    expect(sequenceToFill(fresh('event'))).toBeNull() // its identity column is not the key
  })
})

describe('idNeed', () => {
  it('counts the rows to fill per sequence, in order of first appearance', () => {
    const states = [
      fresh('tag'),
      fresh('author'),
      fresh('author', { id: '3' }),
      fresh('book'),
      fresh('author', { id: null }),
      fresh('tag'),
      fresh('tag'),
    ]
    expect([...idNeed(states)]).toEqual([
      [TAG_SEQ, 3],
      [AUTHOR_SEQ, 2],
    ])
  })

  it('is empty when no row needs an id', () => {
    expect(idNeed([]).size).toBe(0)
    expect(idNeed([fresh('book'), fresh('author', { id: 1 })]).size).toBe(0)
  })
})

describe('assignIds', () => {
  it('writes ids in row order: int8 and numeric as strings, int4 and int2 as numbers', async () => {
    const states = [
      fresh('author'),
      fresh('tag'),
      fresh('author'),
      fresh('counter'),
      fresh('small'),
      fresh('tag'),
    ]
    const ids = await poolOf({ [AUTHOR_SEQ]: 2, [TAG_SEQ]: 2, [COUNTER_SEQ]: 1, [SMALL_SEQ]: 1 })
    assignIds(states, idNeed(states), ids)
    expect(states.map((s) => s.row.id)).toEqual(['1', 1, '2', '1', 1, 2])
  })

  it('leaves rows with a key and rows without sequence alone', async () => {
    const given = fresh('author', { id: '40' })
    const book = fresh('book', { id: BOOK_1 })
    const joined = fresh('book_tag', { book_id: BOOK_1 })
    const filled = fresh('author')
    const states = [given, book, joined, filled]
    assignIds(states, idNeed(states), await poolOf({ [AUTHOR_SEQ]: 1 }))
    expect([given.row.id, book.row.id, filled.row.id]).toEqual(['40', BOOK_1, '1'])
    expect(Object.keys(joined.row)).toEqual(['book_id'])
  })

  it('skips a row with a key inside a run of its table, and resumes a sequence after other tables', async () => {
    const states = [
      fresh('author'),
      fresh('author', { id: '40' }),
      fresh('author'),
      fresh('book', { id: BOOK_1 }),
      fresh('tag'),
      fresh('author'),
    ]
    assignIds(states, idNeed(states), await poolOf({ [AUTHOR_SEQ]: 3, [TAG_SEQ]: 1 }))
    expect(states.map((s) => s.row.id)).toEqual(['1', '40', '2', BOOK_1, 1, '3'])
  })

  it('takes the ids from the pool once: the next rows get the next ids', async () => {
    const ids = await poolOf({ [TAG_SEQ]: 4 })
    const first = [fresh('tag'), fresh('tag')]
    const second = [fresh('tag')]
    assignIds(first, idNeed(first), ids)
    assignIds(second, idNeed(second), ids)
    expect([...first, ...second].map((s) => s.row.id)).toEqual([1, 2, 3])
    expect(ids.available(TAG_SEQ)).toBe(1)
  })

  it('takes nothing and asks nothing for an empty need', () => {
    const ids = new IdAllocator()
    const book = fresh('book', { id: BOOK_1 })
    assignIds([book], new Map(), ids)
    expect(book.row.id).toBe(BOOK_1)
  })

  it('throws when the pool lacks ids, writing no id', async () => {
    const states = [fresh('author'), fresh('author')]
    const ids = await poolOf({ [AUTHOR_SEQ]: 1 })
    expect(() => assignIds(states, idNeed(states), ids)).toThrow(
      `The id pool of ${AUTHOR_SEQ} has 1 ids where 2 are needed.`,
    )
    expect(states.map((s) => 'id' in s.row)).toEqual([false, false])
  })

  it('works with ids fetched by missing and fill, as a flush does', async () => {
    const seqs = new FakeSequences({ a: 11 })
    const ids = new IdAllocator({ blockSize: 2 })
    const need = new Map([['a', 3]])
    await ids.fill(seqs.query, ids.missing(need))
    // 3 short plus a block of twice the need
    expect(seqs.requests).toEqual([new Map([['a', 9]])])
    expect(ids.take(need).get('a')).toEqual(['11', '12', '13'])
  })
})

describe('provisionalIds', () => {
  it('gives rows without ids -1, -2... in row order across sequences, typed as real ids', () => {
    const a = fresh('author')
    const t = fresh('tag')
    const given = fresh('author', { id: '9' })
    const c = fresh('counter')
    const b = fresh('book', { id: BOOK_1 })
    const ids = provisionalIds([a, t, given, c, b])
    expect([a, t, given, c, b].map((s) => ids.get(s))).toEqual(['-1', -2, undefined, '-3', undefined])
  })

  // The rows stay as they were: no key written (an undo deleting it again made every row a slow
  // dictionary-mode object), a key given as null kept as null.
  it('leaves the rows as they are', () => {
    const a = fresh('author', { name: 'Ada' })
    const given = fresh('author', { id: '9' })
    const nulled = fresh('author', { id: null, name: 'Bo' })
    const ids = provisionalIds([a, given, nulled])
    expect(ids.size).toBe(2)
    expect(Object.keys(a.row)).toEqual(['name'])
    expect(given.row.id).toBe('9')
    expect(Object.keys(nulled.row)).toEqual(['id', 'name'])
    expect(nulled.row.id).toBeNull()
  })

  it('gives nothing when no row needs an id', () => {
    expect(provisionalIds([fresh('author', { id: '9' })]).size).toBe(0)
  })
})

describe('sequence parts of composite keys', () => {
  const parts = defineSchema({
    payment: {
      columns: {
        payment_date: 'timestamptz',
        payment_id: { type: 'int4', sequence: 'payment_payment_id_seq' },
        amount: 'numeric',
      },
      primaryKey: ['payment_date', 'payment_id'],
    },
    // Two sequence parts, the second drawing from a sequence the first table shares.
    pair: {
      columns: {
        a: { type: 'int8', sequence: 'pair_a_seq' },
        b: { type: 'int4', sequence: 'payment_payment_id_seq' },
      },
      primaryKey: ['a', 'b'],
    },
  })
  const PAYMENT_SEQ = '"public"."payment_payment_id_seq"'
  const PAIR_SEQ = '"public"."pair_a_seq"'
  const make = (key: string, values: Record<string, unknown> = {}) =>
    tracked(parts.tables.get(key)!, values, 'new').state
  const day = new Date('2022-02-14T00:00:00Z')

  it('needs, assigns and gives placeholders to each sequence part a row lacks, typed for its column', async () => {
    const payment = make('payment', { payment_date: day, amount: '1' })
    const given = make('payment', { payment_date: day, payment_id: 70, amount: '1' })
    const pair = make('pair')
    const half = make('pair', { a: '5' })
    const states = [payment, given, pair, half]
    expect(sequenceToFill(payment)).toBe(PAYMENT_SEQ)
    expect(sequenceToFill(given)).toBeNull()
    expect(sequenceToFill(half)).toBe(PAYMENT_SEQ)
    const need = idNeed(states)
    expect([...need]).toEqual([
      [PAYMENT_SEQ, 3],
      [PAIR_SEQ, 1],
    ])
    const provisional = provisionalIds(states)
    expect(states.map((s) => provisional.get(s))).toEqual([-1, undefined, '-2', -3])
    expect(placeholderIn(provisional, pair, 'a')).toBe('-2')
    expect(placeholderIn(provisional, pair, 'b')).toBe(-2)
    expect(placeholderIn(provisional, half, 'a')).toBeUndefined() // given
    expect(placeholderIn(provisional, half, 'b')).toBe(-3)
    expect(placeholderIn(provisional, payment, 'payment_date')).toBeUndefined()
    assignIds(states, need, await poolOf({ [PAYMENT_SEQ]: 3, [PAIR_SEQ]: 1 }))
    expect(states.map((s) => [s.row['payment_id'] ?? s.row['a'], s.row['b']])).toEqual([
      [1, undefined],
      [70, undefined],
      ['1', 2],
      ['5', 3],
    ])
  })
})
