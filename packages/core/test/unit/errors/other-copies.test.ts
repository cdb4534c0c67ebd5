import { describe, expect, it } from 'vitest'
import { EntityManager, isPipeflushError, PipeflushError } from '../../../src/index.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'

// An application with two copies of @pipeflush/core installed (a typed package nesting another
// version): what one copy made, the other meets. The other copy's objects are made here as that copy
// makes them, marked with the same global symbols.

/** An error as another copy of @pipeflush/core makes it: its own class, the shared mark on its prototype. */
function otherCopysError(code: string): Error {
  class OtherPipeflushError extends Error {
    readonly code = code
  }
  Object.defineProperty(OtherPipeflushError.prototype, Symbol.for('pipeflush.error'), { value: true })
  return new OtherPipeflushError('from the other copy')
}

describe('errors and schemas of another copy of @pipeflush/core', () => {
  it('a pipeflush error of another copy is a pipeflush error: isPipeflushError and instanceof', () => {
    const e = otherCopysError('CONSTRAINT_VIOLATION')
    expect(isPipeflushError(e)).toBe(true)
    expect(isPipeflushError(e, 'CONSTRAINT_VIOLATION')).toBe(true)
    expect(isPipeflushError(e, 'NOT_FOUND')).toBe(false)
    expect(e instanceof PipeflushError).toBe(true)
    expect(new PipeflushError('NOT_FOUND', 'x') instanceof PipeflushError).toBe(true)
    expect(new Error('plain') instanceof PipeflushError).toBe(false)
    expect(isPipeflushError({ code: 'NOT_FOUND' })).toBe(false)
    expect(isPipeflushError(null)).toBe(false)
  })

  it('a schema another copy built is refused at connect with a message naming the two copies', async () => {
    const mine = defineSchema({ t: { columns: { id: 'int4' }, primaryKey: ['id'] } })
    const theirs = { tables: mine.tables }
    Object.defineProperty(theirs, Symbol.for('pipeflush.schemaModel'), { value: true })
    const error = await EntityManager.connect({} as never, { schema: theirs as never }).catch(
      (e: unknown) => e,
    )
    expect(isPipeflushError(error, 'INVALID_CONFIG')).toBe(true)
    expect((error as Error).message).toMatch(/another copy of @pipeflush\/core.*two versions are installed/)
    const plain = await EntityManager.connect({} as never, {
      schema: { tables: mine.tables } as never,
    }).catch((e: unknown) => e)
    expect((plain as Error).message).toMatch(/schema must be a model made by defineSchema\(\)/)
  })
})
