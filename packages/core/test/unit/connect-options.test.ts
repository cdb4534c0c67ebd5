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

  // A schema given is not read: a versionColumn or relationNames saying otherwise would do nothing (a
  // versionColumn beside a schema of defineSchema checked no version), so it is refused; one saying
  // the same (a schema read before with the same options, given again) is taken.
  it('a versionColumn or relationNames beside a schema given must say what the schema says', async () => {
    const spec = { book: { columns: { id: 'int8', version: 'int4' }, primaryKey: ['id'] } } as const
    const plain = defineSchema(spec)
    const versioned = defineSchema({ book: { ...spec.book, version: 'version' } })
    for (const [options, message] of [
      [
        { schema: plain, versionColumn: 'version' },
        "versionColumn says 'version' for table \"book\", and the schema given (`schema`, not read again) says null: declare each table's version column in defineSchema",
      ],
      [
        { schema: plain, versionColumn: { book: 'version' } },
        'versionColumn says \'version\' for table "book"',
      ],
      [
        { schema: versioned, versionColumn: { author: 'version' } },
        'versionColumn says undefined for table "author"',
      ],
      [
        { schema: plain, relationNames: { 'book.x': 'y' } },
        'relationNames differs from the schema given (`schema`, not read again): give defineSchema (or readSchema) its `relationNames`.',
      ],
    ] as const) {
      const error = await EntityManager.connect({} as never, options).catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_CONFIG'), String(error)).toBe(true)
      expect((error as Error).message).toContain(message)
    }
    // Saying what the schema says: past the options, refused only for the client given.
    for (const options of [
      { schema: versioned, versionColumn: 'version' },
      { schema: versioned, versionColumn: { book: 'version' } },
      { schema: plain, relationNames: {} },
    ]) {
      const error = await EntityManager.connect({} as never, options).catch((e: unknown) => e)
      expect((error as Error).message).toMatch(/is not a client/)
    }
  })
})
