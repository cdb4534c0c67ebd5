import { describe, expect, it } from 'vitest'
import { stateOf } from '../../../src/track/entity-state.ts'
import { newRow, upsertOf } from '../../../src/unit-of-work/new-row.ts'
import { protoTable, table, thrown, tracked } from './fixtures.ts'

/** A column name written through a constant: `x.__proto__` reads as the deprecated accessor. */
const PROTO = '__proto__'

describe('trackEntity: assignment through the Proxy', () => {
  it('reads and writes the row; an assignment touches the state once', () => {
    const { state, entity, touched } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    expect(entity.name).toBe('Ada')
    entity.name = 'Grace'
    expect(state.row.name).toBe('Grace')
    expect(entity.name).toBe('Grace')
    expect(touched).toEqual([state])
    expect(touched[0]).toBe(state)
    // the snapshot is a copy: the assignment does not reach it
    expect(state.snapshot?.name).toBe('Ada')
  })

  it('registers the entity as the state of its proxy', () => {
    const { state, entity } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    expect(state.entity).toBe(entity)
    expect(stateOf(entity)).toBe(state)
    expect(entity).not.toBe(state.row)
  })

  it('touches on every assignment, the same value included', () => {
    const { state, entity, touched } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    entity.name = 'Ada'
    entity.bio = null
    expect(touched).toEqual([state, state])
    expect(state.row.bio).toBeNull()
  })

  it('a declared column not set reads as undefined, an unknown property too (an entity is no thenable)', () => {
    const { entity } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    expect(entity.bio).toBeUndefined()
    expect(entity.nmae).toBeUndefined()
    expect(entity.then).toBeUndefined()
  })

  it('refuses an unknown column at once, leaving the row untouched', () => {
    const { state, entity, touched } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    expect(
      thrown(() => {
        entity.nmae = 'x'
      }),
    ).toEqual({
      name: 'PipeflushError',
      code: 'UNKNOWN_COLUMN',
      table: 'author',
      column: 'nmae',
      message: 'author has no column "nmae" (columns: id, name, bio, version).',
    })
    expect(Object.keys(state.row)).toEqual(['id', 'name', 'version'])
    expect(touched).toEqual([])
  })

  it('refuses a generated column, for new and stored rows', () => {
    for (const status of ['new', 'managed'] as const) {
      const { entity, touched } = tracked(table('event'), { id: '1', seq_no: '1' }, status)
      expect(
        thrown(() => {
          entity.total = '3'
        }),
      ).toEqual({
        name: 'PipeflushError',
        code: 'UNSUPPORTED_TABLE',
        table: 'event',
        column: 'total',
        message: 'event.total is a generated column: it cannot be written.',
      })
      expect(touched).toEqual([])
    }
  })

  it('lets a new row set its primary key and version column', () => {
    const { state, entity, touched } = tracked(table('author'), { name: 'Ada' }, 'new')
    entity.id = '7'
    entity.version = 3
    expect(state.row.id).toBe('7')
    expect(state.row.version).toBe(3)
    expect(touched).toEqual([state, state])
  })

  it('refuses to change the primary key of a stored row, but accepts the same value', () => {
    const { state, entity, touched } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    expect(
      thrown(() => {
        entity.id = '2'
      }),
    ).toEqual({
      name: 'PipeflushError',
      code: 'INVALID_STATE',
      table: 'author',
      column: 'id',
      message: 'Cannot change primary key column author.id of a stored row; remove it and create a new one.',
    })
    expect(state.row.id).toBe('1')
    entity.id = '1'
    expect(touched).toEqual([state])
  })

  it('refuses to change any column of a composite key of a stored row', () => {
    const { entity } = tracked(table('book_tag'), { book_id: 'b', tag_id: 1, note: null })
    expect(
      thrown(() => {
        entity.tag_id = 2
      }).code,
    ).toBe('INVALID_STATE')
    entity.note = 'kept'
    expect(entity.note).toBe('kept')
  })

  // Bug: the check compares with `!==`, so an int8 key read as '5' and assigned 5 (the same key, which
  // dirty checking and the identity map treat as equal) is refused as a key change. `Object.assign(entity,
  // body)` with a numeric id in the body throws.
  it('accepts the same primary key in another form (int8 5 for "5")', () => {
    const { state, entity } = tracked(table('author'), { id: '5', name: 'Ada', version: 1 })
    entity.id = 5
    expect(state.row.id).toBe(5)
  })

  it('refuses the version column of a stored row, even unchanged', () => {
    const { state, entity, touched } = tracked(table('author'), { id: '1', name: 'Ada', version: 4 })
    for (const value of [5, 4]) {
      expect(
        thrown(() => {
          entity.version = value
        }),
      ).toEqual({
        name: 'PipeflushError',
        code: 'INVALID_STATE',
        table: 'author',
        column: 'version',
        message: 'author.version is the version column: pipeflush increments it on every update.',
      })
    }
    expect(state.row.version).toBe(4)
    expect(touched).toEqual([])
  })

  // Bug: the Proxy checks every assignment as an insert (`writableColumn(table, prop, 'insert')`), so a
  // GENERATED ALWAYS identity column of a stored row is accepted and the flush then fails at planning
  // (UNSUPPORTED_TABLE), leaving the entity dirty: every later flush fails until the value is put back.
  it('refuses at once an assignment to a GENERATED ALWAYS identity column of a stored row', () => {
    const { state, entity } = tracked(table('event'), { id: '1', seq_no: '10', total: null, label: null })
    expect(
      thrown(() => {
        entity.seq_no = '11'
      }),
    ).toEqual({
      name: 'PipeflushError',
      code: 'UNSUPPORTED_TABLE',
      table: 'event',
      column: 'seq_no',
      message: 'event.seq_no is GENERATED ALWAYS AS IDENTITY: it cannot be updated.',
    })
    expect(state.row.seq_no).toBe('10')
  })

  it('refuses a value for a GENERATED ALWAYS identity column of a new entity (the server would refuse it), created or assigned', () => {
    const message =
      'event.seq_no is GENERATED ALWAYS AS IDENTITY: a new row takes its value from the identity, not from the application (leave it out, or declare the column GENERATED BY DEFAULT to give values). Nothing was sent.'
    const refused = {
      name: 'PipeflushError',
      code: 'INVALID_VALUE',
      table: 'event',
      column: 'seq_no',
      message,
    }
    expect(thrown(() => newRow(table('event'), { id: '1', seq_no: '7' }))).toEqual(refused)
    expect(thrown(() => upsertOf(table('event'), { id: '1', seq_no: 7 }, { conflict: ['id'] }))).toEqual(
      refused,
    )
    const { state, entity, touched } = tracked(table('event'), { id: '1', label: null }, 'new')
    expect(
      thrown(() => {
        entity.seq_no = '11'
      }),
    ).toEqual(refused)
    expect(state.row.seq_no).toBeUndefined()
    expect(touched).toEqual([])
    // Left out or null, it is the identity's: accepted.
    expect(newRow(table('event'), { id: '2', seq_no: null }).seq_no).toBeNull()
    entity.seq_no = null
    expect(state.row.seq_no).toBeNull()
  })

  it('refuses any assignment to a removed or detached entity', () => {
    for (const status of ['removed', 'detached'] as const) {
      const { state, entity, touched } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
      state.status = status
      expect(
        thrown(() => {
          entity.name = 'Grace'
        }),
      ).toEqual({
        name: 'PipeflushError',
        code: 'INVALID_STATE',
        table: 'author',
        column: 'name',
        message: `Cannot assign author.name: the entity is ${status}.`,
      })
      expect(state.row.name).toBe('Ada')
      expect(touched).toEqual([])
    }
  })

  it('checks the column before the status: an unknown column of a removed entity is UNKNOWN_COLUMN', () => {
    const { state, entity } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    state.status = 'removed'
    expect(
      thrown(() => {
        entity.nope = 1
      }).code,
    ).toBe('UNKNOWN_COLUMN')
  })

  it('refuses delete and defineProperty with INVALID_STATE', () => {
    const { state, entity } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    expect(
      thrown(() => {
        delete entity.name
      }),
    ).toEqual({
      name: 'PipeflushError',
      code: 'INVALID_STATE',
      table: 'author',
      message: 'Cannot delete property name of an author entity; assign null instead.',
    })
    expect(thrown(() => Reflect.deleteProperty(entity, 'bio')).code).toBe('INVALID_STATE')
    expect(thrown(() => Object.defineProperty(entity, 'name', { value: 'Grace' }))).toEqual({
      name: 'PipeflushError',
      code: 'INVALID_STATE',
      table: 'author',
      message: 'Cannot define property name on an author entity.',
    })
    expect(thrown(() => Object.defineProperty(entity, Symbol.for('x'), { value: 1 })).code).toBe(
      'INVALID_STATE',
    )
    expect(state.row.name).toBe('Ada')
    expect('name' in state.row).toBe(true)
  })

  it('stores a symbol-keyed property on the row without touching or checking it', () => {
    const { state, entity, touched } = tracked(table('author'), { id: '1', name: 'Ada', version: 1 })
    const tag = Symbol('tag')
    ;(entity as Record<symbol, unknown>)[tag] = 'mine'
    expect((state.row as Record<symbol, unknown>)[tag]).toBe('mine')
    expect(touched).toEqual([])
    expect(Object.keys(entity)).toEqual(['id', 'name', 'version'])
  })
})

describe('trackEntity: a column named __proto__', () => {
  it('is an ordinary column: assigned, read, listed and serialized', () => {
    const { state, entity, touched } = tracked(protoTable, { id: 1 }, 'new')
    entity[PROTO] = 'kept'
    expect(Object.hasOwn(state.row, '__proto__')).toBe(true)
    expect(state.row[PROTO]).toBe('kept')
    expect(entity[PROTO]).toBe('kept')
    expect(Object.getPrototypeOf(entity)).toBe(Object.prototype)
    expect(Object.keys(entity)).toEqual(['id', '__proto__'])
    expect(JSON.stringify(entity)).toBe('{"id":1,"__proto__":"kept"}')
    expect(touched).toEqual([state])
  })

  it('survives a spread as an own property, the copy keeping Object.prototype', () => {
    const { entity } = tracked(protoTable, { id: 1, [PROTO]: 'kept' }, 'new')
    const copy = { ...entity }
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toBe('kept')
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
  })

  it('reads as undefined while unset (a declared column shadows the accessor)', () => {
    const { entity } = tracked(protoTable, { id: 1 }, 'new')
    expect(entity[PROTO]).toBeUndefined()
  })

  it('is Object.prototype on a table without such a column, and assigning it is UNKNOWN_COLUMN', () => {
    const { entity } = tracked(table('tag'), { id: 1, name: 'x' })
    expect(entity[PROTO]).toBe(Object.prototype)
    expect(
      thrown(() => {
        entity[PROTO] = {}
      }).code,
    ).toBe('UNKNOWN_COLUMN')
    expect(Object.getPrototypeOf(entity)).toBe(Object.prototype)
  })
})

describe('trackEntity: behaves as a plain object', () => {
  const values = { id: '1', name: 'Ada', bio: null, version: 2 }

  it('lists, serializes and spreads its set columns in row order', () => {
    const { entity } = tracked(table('author'), values)
    expect(Object.keys(entity)).toEqual(['id', 'name', 'bio', 'version'])
    expect(Object.entries(entity)).toEqual([
      ['id', '1'],
      ['name', 'Ada'],
      ['bio', null],
      ['version', 2],
    ])
    expect(JSON.stringify(entity)).toBe('{"id":"1","name":"Ada","bio":null,"version":2}')
    const copy = { ...entity }
    expect(copy).toEqual(values)
    expect(stateOf(copy)).toBeUndefined()
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
  })

  it('answers `in` and hasOwnProperty for its columns like a plain object', () => {
    const { entity } = tracked(table('author'), { id: '1', name: 'Ada', version: 2 })
    expect('name' in entity).toBe(true)
    expect('bio' in entity).toBe(false) // declared but not set, as a plain object would say
    expect('nope' in entity).toBe(false)
    expect(Object.hasOwn(entity, 'name')).toBe(true)
    expect(Object.hasOwn(entity, 'bio')).toBe(false)
    expect(Object.hasOwn(entity, 'name')).toBe(true)
  })

  it('has Object.prototype and its methods', () => {
    const { entity } = tracked(table('author'), values)
    expect(entity instanceof Object).toBe(true)
    expect(Object.getPrototypeOf(entity)).toBe(Object.prototype)
    expect(Object.prototype.toString.call(entity)).toBe('[object Object]')
    expect(String(entity)).toBe('[object Object]')
    expect(entity.toString).toBe(Object.prototype.toString)
    expect(entity.constructor).toBe(Object)
  })

  // Bug: the Proxy has no `has` trap, so `in` asks the prototype-less row: `'toString' in entity` is
  // false while `entity.toString` is Object.prototype.toString and getPrototypeOf says Object.prototype.
  it('answers `in` for inherited members as a plain object does', () => {
    const { entity } = tracked(table('author'), values)
    expect(['toString' in entity, 'hasOwnProperty' in entity, 'constructor' in entity]).toEqual([
      true,
      true,
      true,
    ])
  })

  it('lets Object.assign and Reflect.set go through the checks', () => {
    const { state, entity, touched } = tracked(table('author'), values)
    Object.assign(entity, { name: 'Grace', bio: 'x' })
    expect(state.row.name).toBe('Grace')
    expect(state.row.bio).toBe('x')
    expect(touched).toEqual([state, state])
    expect(thrown(() => Object.assign(entity, { nope: 1 })).code).toBe('UNKNOWN_COLUMN')
    expect(Reflect.set(entity, 'name', 'Ada')).toBe(true)
    expect(state.row.name).toBe('Ada')
  })
})
