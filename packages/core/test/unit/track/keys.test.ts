import { describe, expect, it } from 'vitest'
import { keyWhere, rowKey } from '../../../src/track/keys.ts'
import { inheritsNothing } from '../inherits-nothing.ts'
import { BOOK_1, table, thrown, tracked } from './fixtures.ts'

describe('rowKey', () => {
  it('is the normalized value of a one-column key, whatever its form', () => {
    const author = table('author')
    expect([5, '5', 5n, '005'].map((id) => rowKey(author, { id }))).toEqual(['5', '5', '5', '5'])
    expect(rowKey(table('book'), { id: BOOK_1.toUpperCase() })).toBe(BOOK_1)
    expect(rowKey(table('counter'), { id: '1.50' })).toBe('1.5')
  })

  it('is a JSON array of the normalized values for a composite key, in key order', () => {
    expect(rowKey(table('book_tag'), { tag_id: 3, book_id: BOOK_1.toUpperCase() })).toBe(`["${BOOK_1}","3"]`)
    expect(rowKey(table('shelf'), { room: 'A "1"', slot: 2 })).toBe('["A \\"1\\"","2"]')
  })

  it('is null while a key column has no value (null or undefined)', () => {
    expect(rowKey(table('author'), { name: 'Ada' })).toBeNull()
    expect(rowKey(table('author'), { id: null })).toBeNull()
    expect(rowKey(table('book_tag'), { book_id: BOOK_1 })).toBeNull()
    expect(rowKey(table('book_tag'), { book_id: null, tag_id: 1 })).toBeNull()
  })

  it('ignores the other columns', () => {
    expect(rowKey(table('author'), { id: 1, name: 'x' })).toBe(rowKey(table('author'), { id: 1, name: 'y' }))
  })

  it('refuses a value that cannot be a key of its column (INVALID_VALUE naming the table)', () => {
    const error = thrown(() => rowKey(table('author'), { id: 1.5 }))
    expect(error.code).toBe('INVALID_VALUE')
    expect(error.table).toBe('author')
    expect(error.column).toBe('id')
    expect(error.message).toMatch(/^author\.id .*not a valid int8/)
    expect(thrown(() => rowKey(table('book'), { id: 'nope' })).code).toBe('INVALID_VALUE')
  })
})

describe('keyWhere', () => {
  it('takes a single value for a one-column key', () => {
    expect(keyWhere(table('author'), 3)).toEqual({ id: 3 })
    expect(keyWhere(table('author'), '3')).toEqual({ id: '3' })
    expect(keyWhere(table('book'), BOOK_1)).toEqual({ id: BOOK_1 })
  })

  it('takes an object holding the key column, or an entity, for a one-column key', () => {
    expect(keyWhere(table('author'), { id: 4, name: 'ignored' })).toEqual({ id: 4 })
    const ada = tracked(table('author'), { id: '8', name: 'Ada', version: 1 })
    expect(keyWhere(table('author'), ada.entity)).toEqual({ id: '8' })
  })

  it('passes a Date or a Buffer through as the value', () => {
    const day = new Date(0)
    const bytes = Buffer.from('k')
    expect(keyWhere(table('author'), day).id).toBe(day)
    expect(keyWhere(table('author'), bytes).id).toBe(bytes)
  })

  it('passes an object without the key column through (its validation comes later)', () => {
    const wrong = { ID: 1 }
    expect(keyWhere(table('author'), wrong).id).toBe(wrong)
  })

  it('refuses a missing one-column key', () => {
    for (const key of [undefined, null, { id: null }, { id: undefined }]) {
      const error = thrown(() => keyWhere(table('author'), key))
      expect(error).toEqual({
        name: 'PipeflushError',
        code: 'INVALID_VALUE',
        table: 'author',
        column: 'id',
        message: `A key of author is needed, not ${key === null || (key !== undefined && key.id === null) ? 'null' : 'undefined'}.`,
      })
    }
  })

  it('takes the key columns of an object for a composite key, in a row without prototype', () => {
    const where = keyWhere(table('book_tag'), { tag_id: 2, book_id: BOOK_1, note: 'ignored' })
    expect(inheritsNothing(where)).toBe(true)
    expect(Object.keys(where)).toEqual(['book_id', 'tag_id'])
    expect({ ...where }).toEqual({ book_id: BOOK_1, tag_id: 2 })
  })

  it('refuses a scalar for a composite key', () => {
    for (const key of [1, 'a', null, undefined]) {
      expect(thrown(() => keyWhere(table('book_tag'), key))).toEqual({
        name: 'PipeflushError',
        code: 'INVALID_VALUE',
        table: 'book_tag',
        message: `book_tag has a composite primary key (book_id, tag_id): pass an object of them, not ${String(key)}.`,
      })
    }
  })

  it('refuses a composite key lacking a column, naming it', () => {
    for (const key of [{ book_id: BOOK_1 }, { book_id: BOOK_1, tag_id: null }]) {
      expect(thrown(() => keyWhere(table('book_tag'), key))).toEqual({
        name: 'PipeflushError',
        code: 'INVALID_VALUE',
        table: 'book_tag',
        column: 'tag_id',
        message: 'The key of book_tag lacks its column "tag_id".',
      })
    }
  })
})
