import { describe, expect, it } from 'vitest'
import { isPipeflushError } from '../../../src/errors.ts'
import { assignIds, idNeed } from '../../../src/ids/assign-ids.ts'
import { IdAllocator } from '../../../src/ids/id-allocator.ts'
import type { ValueMapping } from '../../../src/model/model.ts'
import { planStatements } from '../../../src/plan/format-plan.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { hasMutableColumns } from '../../../src/track/snapshot.ts'
import { decodeValue, encodeValue, normalizeKeyValue, sameValue } from '../../../src/values/index.ts'
import { versionValue } from '../../../src/values/mapping.ts'
import { changes } from '../plan/fixtures.ts'
import { column as columnOfType } from './columns.ts'

// A column's own representation over pipeflush's (`ColumnModel.mapping`): int8 held as numbers, a
// timestamp held as the server's text (`text: true`) mapped to Dates, a point as an [x, y] pair.
const asNumber: ValueMapping = { read: (v) => Number(v), write: (v) => v }
const asDate: ValueMapping = {
  read: (v) => new Date(`${v as string}+0000`),
  write: (v) => (v as Date).toISOString(),
}
const asPair: ValueMapping = {
  read: (v) => (v as string).slice(1, -1).split(',').map(Number),
  write: (v) => `(${(v as number[]).join(',')})`,
}
const schema = defineSchema({
  spot: {
    columns: {
      id: { sql: 'bigint', sequence: 'spot_id_seq', mapping: asNumber },
      seen: { sql: 'timestamp', text: true, mapping: asDate, nullable: true },
      at: { sql: 'point', mapping: asPair, nullable: true },
      stamps: { sql: 'timestamptz[]', text: true, nullable: true },
    },
    primaryKey: ['id'],
  },
})
const spot = schema.tables.get('spot')!
const column = (name: string) => spot.columnsByName.get(name)!

describe('a column mapping', () => {
  it('reads decoded values into the application representation, arrays whole', () => {
    expect(decodeValue('12', column('id'))).toBe(12)
    expect(decodeValue('2024-03-31 02:30:00.123456', column('seen'))).toEqual(
      new Date('2024-03-31T02:30:00.123Z'),
    )
    expect(decodeValue('(1.5,-2)', column('at'))).toEqual([1.5, -2])
    expect(decodeValue(null, column('at'))).toBeNull()
  })

  it('writes application values before they are validated and encoded', () => {
    expect(encodeValue(12, column('id'), { table: 'spot' })).toBe('12')
    expect(encodeValue(new Date('2024-03-31T02:30:00.123Z'), column('seen'), { table: 'spot' })).toBe(
      '2024-03-31T02:30:00.123Z',
    )
    expect(encodeValue([1, 2], column('at'), { table: 'spot' })).toBe('(1,2)')
    expect(encodeValue(null, column('at'), { table: 'spot' })).toBeNull()
  })

  it('reports what the mapping or the codec refuses as INVALID_VALUE naming table and column', () => {
    const bad = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        return isPipeflushError(e, 'INVALID_VALUE') ? `${e.table}.${e.column}` : e
      }
      return 'no error'
    }
    expect(bad(() => encodeValue(new Date(Number.NaN), column('seen'), { table: 'spot' }))).toBe('spot.seen')
    expect(bad(() => encodeValue(1.5, column('id'), { table: 'spot' }))).toBe('spot.id')
    expect(bad(() => encodeValue(undefined, column('id'), { table: 'spot' }))).toBe('spot.id')
  })

  it("keeps what the mapping threw as the INVALID_VALUE's cause, writing and reading", () => {
    const thrown = new RangeError('no such colour')
    const refusing: ValueMapping = {
      read: () => {
        throw thrown
      },
      write: () => {
        throw thrown
      },
    }
    const paint = defineSchema({
      paint: {
        columns: { id: { sql: 'int4' }, colour: { sql: 'text', mapping: refusing } },
        primaryKey: ['id'],
      },
    })
    const colour = paint.tables.get('paint')!.columnsByName.get('colour')!
    const failure = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        return e
      }
      throw new Error('no error')
    }
    const written = failure(() => encodeValue('mauve', colour, { table: 'paint', key: { id: 1 } }))
    expect(isPipeflushError(written, 'INVALID_VALUE') && written.cause).toBe(thrown)
    expect((written as Error).message).toMatch(
      /paint\.colour .*cannot be written to the column: no such colour/,
    )
    const read = failure(() => decodeValue('mauve', colour))
    expect(isPipeflushError(read, 'INVALID_VALUE') && read.cause).toBe(thrown)
  })

  it('compares and keys what it writes', () => {
    expect(sameValue(new Date(5), new Date(5), column('seen'))).toBe(true)
    expect(sameValue(new Date(5), new Date(6), column('seen'))).toBe(false)
    expect(sameValue([1, 2], [1, 2], column('at'))).toBe(true)
    expect(sameValue(new Date(Number.NaN), new Date(5), column('seen'))).toBe(false)
    expect(normalizeKeyValue(7, column('id'))).toBe('7')
    expect(hasMutableColumns(spot)).toBe(true)
  })

  it('types the text of a type pipeflush has a codec for as other (text: true)', () => {
    expect(column('stamps')).toMatchObject({ type: 'other', castType: 'timestamptz', isArray: true })
    expect(decodeValue('{"2024-01-02 03:04:05.123456+01",NULL}', column('stamps'))).toEqual([
      '2024-01-02 03:04:05.123456+01',
      null,
    ])
  })

  it('gives ids drawn from the sequence in the application representation', async () => {
    const ids = new IdAllocator({ blockSize: 1 })
    const row: Record<string, unknown> = { seen: null }
    const state = { table: spot, row, status: 'new' } as never
    const need = idNeed([state])
    const sequence = '"public"."spot_id_seq"'
    expect([...need]).toEqual([[sequence, 1]])
    await ids.fill(async () => [{ seq: sequence, first: '41', count: 1, ids: null }], need)
    assignIds([state], need, ids)
    expect(row['id']).toBe(41)
  })

  it('plans the values it writes', () => {
    const plan = planFlush(
      schema,
      changes({ inserts: [{ table: 'spot', values: { id: 3, seen: new Date(0), at: [0, 1] } }] }),
    )
    expect(planStatements(plan)[0]?.params).toEqual([['3'], ['1970-01-01T00:00:00.000Z'], ['(0,1)']])
  })
})

describe('versionValue', () => {
  // Bug: a version column mapped to bigints (Drizzle's bigint({ mode: 'bigint' })) held the numbers
  // 1 and 2 after a create and an update, where a read gives 1n.
  it('gives a version as the column mapping reads it, as a read decodes it without a mapping', () => {
    const asBigint = columnOfType('int8', { mapping: { read: (v) => BigInt(v as string), write: (v) => v } })
    const asText = columnOfType('int8', { mapping: { read: (v) => `v${String(v)}`, write: (v) => v } })
    const int4 = columnOfType('int4', { mapping: { read: (v) => (v as number) * 10, write: (v) => v } })
    expect(versionValue(2, asBigint)).toBe(2n)
    expect(versionValue(2, asText)).toBe('v2')
    expect(versionValue(2, int4)).toBe(20)
    // An int8 or numeric is read as its text (exact), a smaller type as a number: an entity's version
    // had the type of a number after a create or an update, a string once read again.
    expect(versionValue(2, columnOfType('int8'))).toBe('2')
    expect(versionValue(2, columnOfType('numeric'))).toBe('2')
    expect(versionValue(2, columnOfType('int4'))).toBe(2)
    expect(versionValue(2, columnOfType('int2'))).toBe(2)
  })
})
