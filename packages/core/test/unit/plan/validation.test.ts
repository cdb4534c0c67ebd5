import { describe, expect, it } from 'vitest'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import type { ChangeSet } from '../../../src/plan/types.ts'
import { buildSchemaModel, buildTableModel } from '../../../src/schema/build-table.ts'
import { A, changes, library } from './fixtures.ts'

function codeOf(set: ChangeSet, schema = library): string | undefined {
  try {
    planFlush(schema, set)
  } catch (e) {
    return (e as { code?: string }).code
  }
  return undefined
}

describe('planFlush validation', () => {
  it('an upsert row leaving a conflict column out is INVALID_VALUE naming it as a conflict column, not as a missing value', () => {
    const upsert = { conflict: ['name'], update: [] }
    for (const values of [{ id: 5 }, { id: 5, name: undefined }]) {
      let error: { code?: string; message?: string } | undefined
      try {
        planFlush(library, changes({ inserts: [{ table: 'tag', values, upsert }] }))
      } catch (e) {
        error = e as typeof error
      }
      expect(error?.code).toBe('INVALID_VALUE')
      expect(error?.message).toBe(
        'Upsert into "tag": the row does not supply "name" (an upsert finds its row by the values of its conflict columns: give each one).',
      )
    }
  })

  // Bug (outside probe): an update column the row does not supply was reported with the reason for a
  // conflict column ("an upsert finds its row by the values of its conflict columns").
  it('an upsert row leaving an update column out is INVALID_VALUE naming it as an update column', () => {
    let error: { code?: string; message?: string } | undefined
    try {
      planFlush(
        library,
        changes({
          inserts: [{ table: 'tag', values: { id: 5 }, upsert: { conflict: ['id'], update: ['name'] } }],
        }),
      )
    } catch (e) {
      error = e as typeof error
    }
    expect(error?.code).toBe('INVALID_VALUE')
    expect(error?.message).toBe(
      'Upsert into "tag": the row does not supply "name" (its `update` names it: an upsert sets the update columns to the values the row gives; give it, or leave it out of `update`).',
    )
  })

  it('rejects unknown tables and columns', () => {
    expect(codeOf(changes({ inserts: [{ table: 'nope', values: { id: 1 } }] }))).toBe('UNKNOWN_TABLE')
    expect(codeOf(changes({ inserts: [{ table: 'tag', values: { id: 1, name: 'x', color: 'red' } }] }))).toBe(
      'UNKNOWN_COLUMN',
    )
    expect(codeOf(changes({ updates: [{ table: 'tag', key: { id: 1 }, set: { color: 'red' } }] }))).toBe(
      'UNKNOWN_COLUMN',
    )
    expect(codeOf(changes({ deletes: [{ table: 'tag', key: { id: 1, color: 'red' } }] }))).toBe(
      'UNKNOWN_COLUMN',
    )
  })

  it('checks the columns of every row, not only those of the first row of a table', () => {
    const tag = (values: Record<string, unknown>) => ({ table: 'tag', values })
    // An extra column, then a same-size set with one unknown column, after rows of a valid shape.
    expect(
      codeOf(changes({ inserts: [tag({ id: 1, name: 'a' }), tag({ id: 2, name: 'b', color: 'red' })] })),
    ).toBe('UNKNOWN_COLUMN')
    expect(codeOf(changes({ inserts: [tag({ id: 1, name: 'a' }), tag({ id: 2, colour: 'b' })] }))).toBe(
      'UNKNOWN_COLUMN',
    )
    // A generated column set by the second update of a table.
    expect(
      codeOf(
        changes({
          updates: [
            { table: 'event', key: { id: 1 }, set: { mood: 'ok' } },
            { table: 'event', key: { id: 2 }, set: { total: 1 } },
          ],
        }),
      ),
    ).toBe('UNSUPPORTED_TABLE')
    // Rows of one shape share one statement; another shape gets its own.
    const plan = planFlush(
      library,
      changes({ inserts: [tag({ id: 1, name: 'a' }), tag({ name: 'b', id: 2 }), tag({ id: 3 })] }),
    )
    expect(plan.waves[0]!.map((s) => `${s.columns.join(',')} x${s.rowCount}`)).toEqual([
      'id x1',
      'id,name x2',
    ])
    // Runs of one shape broken by other tables, other shapes and an upsert: each row still lands in
    // the statement of its own table and columns, and a bad row after a run is still found.
    const author = (values: Record<string, unknown>) => ({ table: 'author', values })
    const mixed = [
      tag({ id: 1, name: 'a' }),
      author({ id: 1, name: 'x' }),
      tag({ id: 2, name: 'b' }),
      tag({ id: 3 }),
      tag({ name: 'd', id: 4 }),
      { table: 'tag', values: { id: 5, name: 'e' }, upsert: { conflict: ['id'], update: ['name'] } },
      tag({ id: 6, name: 'f' }),
      author({ name: 'y', id: 2 }),
    ]
    const mixedPlan = planFlush(library, changes({ inserts: mixed }))
    expect(
      mixedPlan.waves
        .flat()
        .map((s) => `${s.table} ${s.columns.join(',')}${s.upsert ? ' upsert' : ''} ${s.keys.join(',')}`),
    ).toEqual(['author id,name 1,2', 'tag id 3', 'tag id,name 1,2,4,6', 'tag id,name upsert 5'])
    expect(codeOf(changes({ inserts: [...mixed, tag({ id: 7, name: 'g', color: 'red' })] }))).toBe(
      'UNKNOWN_COLUMN',
    )
    expect(codeOf(changes({ inserts: [...mixed, tag({ id: 7, colour: 'g' })] }))).toBe('UNKNOWN_COLUMN')
  })

  it('rejects tables without a primary key', () => {
    const keyless = buildSchemaModel([
      buildTableModel({
        schema: 'public',
        name: 'log',
        columns: [{ name: 'line', type: 'text' }],
        primaryKey: [],
      }),
    ])
    expect(codeOf(changes({ inserts: [{ table: 'log', values: { line: 'x' } }] }), keyless)).toBe(
      'UNSUPPORTED_TABLE',
    )
  })

  it('rejects missing primary key values', () => {
    expect(codeOf(changes({ inserts: [{ table: 'tag', values: { name: 'x' } }] }))).toBe('INVALID_VALUE')
    expect(codeOf(changes({ deletes: [{ table: 'book_tag', key: { book_id: A } }] }))).toBe('INVALID_VALUE')
    expect(codeOf(changes({ updates: [{ table: 'tag', key: { id: null }, set: { name: 'x' } }] }))).toBe(
      'INVALID_VALUE',
    )
  })

  it('rejects a non-key column in a key, a key column or the version column in a set', () => {
    expect(codeOf(changes({ deletes: [{ table: 'tag', key: { id: 1, name: 'x' } }] }))).toBe('INVALID_STATE')
    expect(codeOf(changes({ updates: [{ table: 'tag', key: { id: 1 }, set: { id: 2 } }] }))).toBe(
      'INVALID_STATE',
    )
    expect(codeOf(changes({ updates: [{ table: 'author', key: { id: 1 }, set: { version: 2 } }] }))).toBe(
      'INVALID_STATE',
    )
  })

  it('rejects an expected version on a table without version column', () => {
    expect(codeOf(changes({ deletes: [{ table: 'tag', key: { id: 1 }, expectedVersion: 1 }] }))).toBe(
      'INVALID_STATE',
    )
  })

  it('rejects writes to generated columns and updates of identity always columns', () => {
    expect(codeOf(changes({ updates: [{ table: 'event', key: { id: 1 }, set: { total: 1 } }] }))).toBe(
      'UNSUPPORTED_TABLE',
    )
    expect(codeOf(changes({ inserts: [{ table: 'event', values: { id: 1, mood: 'ok' } }] }))).toBeUndefined()
  })

  it('rejects two new rows with one key, and one row changed twice', () => {
    const tag = { table: 'tag', values: { id: 1, name: 'x' } }
    expect(codeOf(changes({ inserts: [tag, { table: 'tag', values: { id: 1n, name: 'y' } }] }))).toBe(
      'DUPLICATE_KEY',
    )
    expect(
      codeOf(changes({ inserts: [tag], updates: [{ table: 'tag', key: { id: 1 }, set: { name: 'z' } }] })),
    ).toBe('INVALID_STATE')
    expect(
      codeOf(
        changes({
          updates: [
            { table: 'tag', key: { id: 2 }, set: { name: 'z' } },
            { table: 'tag', key: { id: '2' }, set: { name: 'w' } },
          ],
        }),
      ),
    ).toBe('INVALID_STATE')
    expect(
      codeOf(
        changes({
          updates: [{ table: 'tag', key: { id: 2 }, set: { name: 'z' } }],
          deletes: [{ table: 'tag', key: { id: 2 } }],
        }),
      ),
    ).toBe('INVALID_STATE')
    expect(
      codeOf(
        changes({
          deletes: [
            { table: 'tag', key: { id: 2 } },
            { table: 'tag', key: { id: 2 } },
          ],
        }),
      ),
    ).toBe('INVALID_STATE')
  })

  it('finds a repeated key anywhere among many rows of one statement, and across statements of a table', () => {
    const errorOf = (set: ChangeSet, schema = library) => {
      try {
        planFlush(schema, set)
      } catch (e) {
        return e as { code?: string; message: string; keys?: unknown[] }
      }
      throw new Error('planned')
    }
    // One statement of 500 rows, the repeated key far from its twin: rows are compared sorted by key.
    const tags = Array.from({ length: 500 }, (_, i) => ({
      table: 'tag',
      values: { id: 1000 - i, name: `t${i}` },
    }))
    tags[400] = { table: 'tag', values: { id: 990, name: 'again' } }
    const duplicate = errorOf(changes({ inserts: tags }))
    expect(duplicate.code).toBe('DUPLICATE_KEY')
    expect(duplicate.message).toBe('Two new rows of "tag" share a key (key=990).')
    // Two insert statements of one table (different column sets): looked up across statements.
    const book = (title?: string) => ({
      table: 'book',
      values: { id: A, author_id: 1, ...(title === undefined ? {} : { title }) },
    })
    expect(codeOf(changes({ inserts: [book(), book('t')] }))).toBe('DUPLICATE_KEY')
    // A composite key deleted twice, among other rows.
    const link = (tag: number) => ({ table: 'book_tag', key: { book_id: A, tag_id: tag } })
    const twice = errorOf(changes({ deletes: [link(3), link(1), link(2), link(1)] }))
    expect(twice.code).toBe('INVALID_STATE')
    expect(twice.message).toContain('is written twice in one flush (delete, then delete)')
    expect(twice.message).toContain(`the row (key=('${A}', 1))`)
    // A text key is shown by its kind only (an e-mail address can be a key); the value stays on the error.
    const people = buildSchemaModel([
      buildTableModel({
        schema: 'public',
        name: 'person',
        columns: [{ name: 'email', type: 'text', nullable: false }],
        primaryKey: ['email'],
      }),
    ])
    const email = 'alice.secret@example.com'
    const person = { table: 'person', values: { email } }
    const shared = errorOf(changes({ inserts: [person, person] }), people)
    expect(shared.code).toBe('DUPLICATE_KEY')
    expect(shared.message).toBe('Two new rows of "person" share a key (key=a string of 24 characters).')
    expect(shared.keys).toEqual([email])
    // Upsert rows go in conflict order: their keys are looked up.
    const upsert = { conflict: ['name'], update: [] }
    expect(
      codeOf(
        changes({
          inserts: [
            { table: 'tag', values: { id: 5, name: 'a' }, upsert },
            { table: 'tag', values: { id: 5, name: 'b' }, upsert },
          ],
        }),
      ),
    ).toBe('DUPLICATE_KEY')
    // An insert and a delete of one key is a replaced row, not an error; distinct keys pass.
    expect(
      codeOf(
        changes({
          inserts: [{ table: 'tag', values: { id: 7, name: 'n' } }],
          deletes: [{ table: 'tag', key: { id: 7 } }],
        }),
      ),
    ).toBeUndefined()
    expect(codeOf(changes({ inserts: tags.filter((_, i) => i !== 400) }))).toBeUndefined()
  })

  it('rejects invalid values with INVALID_VALUE', () => {
    expect(codeOf(changes({ inserts: [{ table: 'event', values: { id: 1, mood: 'furious' } }] }))).toBe(
      'INVALID_VALUE',
    )
    expect(
      codeOf(
        changes({ updates: [{ table: 'author', key: { id: 1 }, set: { name: 'x' }, expectedVersion: 1.5 }] }),
      ),
    ).toBe('INVALID_VALUE')
  })
})
