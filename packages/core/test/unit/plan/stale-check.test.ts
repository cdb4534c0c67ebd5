import { describe, expect, it } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'
import { planStatements } from '../../../src/plan/format-plan.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import { parseStaleError, staleStatementKeys } from '../../../src/plan/statements/stale-check.ts'
import { A, B, changes, library } from './fixtures.ts'

/** What PostgreSQL 18 answered to a stale update of rows 3, 5 and 7 (copied from a run against a real server). */
const SERVER_MESSAGE =
  'invalid input syntax for type integer: "pipeflush:stale:{"table" : "author", "expected" : 3, "matched" : 1, "sent" : [["3","5","7"]], "matched_keys" : [["5"]]}"'

describe('parseStaleError', () => {
  it('recognises a driver error with SQLSTATE 22P02 and the marker', () => {
    expect(parseStaleError({ code: '22P02', message: SERVER_MESSAGE, severity: 'ERROR' })).toEqual({
      table: 'author',
      keys: ['3', '7'],
      keyTuples: [['3'], ['7']],
      expected: 3,
      matched: 1,
    })
  })

  it('recognises an Error, a bare message and a wrapped cause', () => {
    const error = Object.assign(new Error(SERVER_MESSAGE), { code: '22P02' })
    expect(parseStaleError(error)?.keys).toEqual(['3', '7'])
    expect(parseStaleError(SERVER_MESSAGE)?.table).toBe('author')
    const wrapped = new PipeflushError('STATEMENT_FAILED', 'failed', { cause: error })
    expect(parseStaleError(wrapped)?.keys).toEqual(['3', '7'])
  })

  it('reads composite keys and keys holding quotes, commas and braces', () => {
    const message = `invalid input syntax for type integer: "pipeflush:stale:{"table" : "my.t", "expected" : 3, "matched" : 1, "sent" : [["a,\\"}b","x","y"],["1","2","3"]], "matched_keys" : [["y", "3"]]}"`
    expect(parseStaleError({ code: '22P02', message })).toEqual({
      table: 'my.t',
      keys: ['["a,\\"}b","1"]', '["x","2"]'],
      keyTuples: [
        ['a,"}b', '1'],
        ['x', '2'],
      ],
      expected: 3,
      matched: 1,
    })
  })

  it('names every row sent when none was written', () => {
    const message = `invalid input syntax for type integer: "pipeflush:stale:{"table" : "t", "expected" : 2, "matched" : 0, "sent" : [["1","2"]], "matched_keys" : []}"`
    expect(parseStaleError({ code: '22P02', message })?.keyTuples).toEqual([['1'], ['2']])
  })

  it('returns null for other errors', () => {
    expect(
      parseStaleError({ code: '22P02', message: 'invalid input syntax for type integer: "abc"' }),
    ).toBeNull()
    expect(parseStaleError({ code: '23505', message: SERVER_MESSAGE })).toBeNull()
    expect(
      parseStaleError({
        code: '22P02',
        message: 'invalid input syntax for type integer: "pipeflush:stale:{oops"',
      }),
    ).toBeNull()
    // The message of an earlier check, without 'sent': keys it does not carry are not guessed.
    expect(
      parseStaleError({
        code: '22P02',
        message:
          'invalid input syntax for type integer: "pipeflush:stale:{"table" : "author", "expected" : 3, "matched" : 1, "keys" : [["3"]]}"',
      }),
    ).toBeNull()
    // Key columns of different lengths are not a payload of the check.
    expect(
      parseStaleError({
        code: '22P02',
        message:
          'invalid input syntax for type integer: "pipeflush:stale:{"table" : "t", "sent" : [["1","2"],["3"]], "matched_keys" : []}"',
      }),
    ).toBeNull()
    expect(parseStaleError(new Error('boom'))).toBeNull()
    expect(parseStaleError(undefined)).toBeNull()
    expect(parseStaleError(null)).toBeNull()
    expect(parseStaleError(42)).toBeNull()
  })
})

describe('staleStatementKeys', () => {
  it('maps the reported keys back to the change set keys', () => {
    const plan = planFlush(
      library,
      changes({
        deletes: [
          { table: 'book_tag', key: { book_id: A, tag_id: 5n } },
          { table: 'book_tag', key: { book_id: B, tag_id: 6 } },
        ],
      }),
    )
    const [statement] = planStatements(plan)
    const stale = parseStaleError({
      code: '22P02',
      message: `invalid input syntax for type integer: "pipeflush:stale:{"table" : "book_tag", "expected" : 2, "matched" : 1, "sent" : [["${A}","${B}"],["5","6"]], "matched_keys" : [["${B}", "6"]]}"`,
    })!
    expect(staleStatementKeys(library.tables.get('book_tag')!, statement!, stale)).toEqual([[A, 5n]])
  })
})
