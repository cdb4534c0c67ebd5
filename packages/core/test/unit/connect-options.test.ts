import { describe, expect, it } from 'vitest'
import { defineSchema, EntityManager, isPipeflushError } from '../../src/index.ts'

// Options are checked before the client is touched: a misspelled one is refused, never dropped.
describe('EntityManager.connect options', () => {
  it('an option it does not know is INVALID_CONFIG naming the closest it knows', async () => {
    for (const [given, near] of [
      ['pipline', 'pipeline'],
      ['flushTimeoutMS', 'flushTimeoutMs'],
      ['prefetchId', 'prefetchIds'],
    ] as const) {
      const error = await EntityManager.connect({} as never, { [given]: 'x' } as never).catch(
        (e: unknown) => e,
      )
      expect(isPipeflushError(error, 'INVALID_CONFIG'), String(error)).toBe(true)
      expect((error as Error).message).toContain(`unknown option "${given}" (did you mean "${near}"?)`)
    }
    const far = await EntityManager.connect({} as never, { colour: 'blue' } as never).catch((e: unknown) => e)
    expect((far as Error).message).toMatch(/unknown option "colour"; the options are pipeline, schema, /)
  })

  // A schema given is not read: the options saying how to read one would do nothing (a versionColumn
  // so given checked no version), so they are refused.
  it('an option of the catalog read beside a schema given is INVALID_CONFIG naming where it goes', async () => {
    const schema = defineSchema({
      book: { columns: { id: 'int8', version: 'int4' }, primaryKey: ['id'] },
    })
    for (const [name, value, advice] of [
      ['versionColumn', 'version', "declare each table's version column in defineSchema"],
      ['schemas', ['app'], "give defineSchema the tables' schemas"],
      ['relationNames', { 'book.x': 'y' }, 'give defineSchema (or readSchema) its `relationNames`'],
    ] as const) {
      const error = await EntityManager.connect({} as never, { schema, [name]: value }).catch(
        (e: unknown) => e,
      )
      expect(isPipeflushError(error, 'INVALID_CONFIG'), String(error)).toBe(true)
      expect((error as Error).message).toContain(
        `${name} says how the schema is read from the database, and a schema given as \`schema\` is not read: ${advice}`,
      )
    }
  })
})
