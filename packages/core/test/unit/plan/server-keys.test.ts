import { describe, expect, it } from 'vitest'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import type { ChangeSet, FlushPlan } from '../../../src/plan/types.ts'
import { buildSchemaModel, buildTableModel } from '../../../src/schema/build-table.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'

// Rows whose key the server fills (a DEFAULT that is no sequence's): planned without it, in the order
// given, listing where each came from so that the keys coming back find their entities.
const schema = defineSchema({
  ticket: {
    columns: {
      code: { type: 'text', default: true },
      note: 'text',
      ref_code: { type: 'text', nullable: true },
    },
    primaryKey: ['code'],
    uniques: [['note']],
  },
  // A nullable cycle with ticket through its unique note.
  memo: {
    columns: { id: 'int4', note: { type: 'text', nullable: true } },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['note'], references: 'ticket', targetColumns: ['note'] }],
  },
  shift: {
    columns: { store_id: 'int4', shift_no: { type: 'int8', default: true }, note: 'text' },
    primaryKey: ['store_id', 'shift_no'],
  },
})

function changes(set: Partial<ChangeSet>): ChangeSet {
  return { inserts: [], updates: [], deletes: [], ...set }
}

function statements(plan: FlushPlan) {
  return plan.waves.flat()
}

describe('planning rows whose key the server fills', () => {
  it('leaves the key out, keeps the rows in the order given and lists where each came from', () => {
    const plan = planFlush(
      schema,
      changes({
        inserts: [
          { table: 'ticket', values: { note: 'z' } },
          { table: 'ticket', values: { code: 'T-9', note: 'given' } },
          { table: 'ticket', values: { note: 'a' } },
          { table: 'shift', values: { store_id: 2, note: 'night' } },
          { table: 'ticket', values: { note: 'm' } },
          { table: 'ticket', values: { code: 'T-1', note: 'given too' } },
        ],
      }),
    )
    const [shift, keyed, keyless] = statements(plan)
    expect(keyless).toMatchObject({
      table: 'ticket',
      columns: ['note'],
      params: [['z', 'a', 'm']],
      sources: [0, 2, 4],
      keys: [null, null, null],
    })
    expect(keyed).toMatchObject({ columns: ['code', 'note'], keys: ['T-1', 'T-9'] })
    expect(keyed?.sources).toBeUndefined()
    expect(shift).toMatchObject({ table: 'shift', columns: ['store_id', 'note'], sources: [3] })
  })

  it('never takes rows without a key for duplicates; an upsert leaves the key out without sources', () => {
    const plan = planFlush(
      schema,
      changes({
        inserts: [
          { table: 'ticket', values: { note: 'same' } },
          { table: 'ticket', values: { note: 'same' } },
          { table: 'ticket', values: { note: 'u' }, upsert: { conflict: ['note'], update: [] } },
          { table: 'ticket', values: { note: 'v' }, upsert: { conflict: ['note'], update: [] } },
        ],
      }),
    )
    const byUpsert = statements(plan).map((s) => [s.upsert !== undefined, s.rowCount, s.sources])
    expect(byUpsert).toEqual([
      [false, 2, [0, 1]],
      [true, 2, undefined],
    ])
  })

  it('orders rows referencing a keyless row by a unique column after it; breaks a nullable cycle where a row has a key, never at a keyless row', () => {
    // The memo side has more rows, so the cheapest break would be at the one ticket.
    const plan = planFlush(
      schema,
      changes({
        inserts: [
          { table: 'ticket', values: { note: 'n1', ref_code: null } },
          { table: 'memo', values: { id: 1, note: 'n1' } },
          { table: 'memo', values: { id: 2, note: 'n1' } },
        ],
      }),
    )
    expect(statements(plan).map((s) => `${s.kind} ${s.table}${s.fixup ? ' (fix-up)' : ''}`)).toEqual([
      'insert ticket',
      'insert memo',
    ])
    const cyclic = buildSchemaModel([
      buildTableModel({
        schema: 'public',
        name: 'a',
        columns: [
          { name: 'id', type: 'int4', hasDefault: true },
          { name: 'code', type: 'text' },
          { name: 'b_id', type: 'int4', nullable: true },
        ],
        primaryKey: ['id'],
        uniques: [{ name: 'a_code_key', columns: ['code'] }],
        foreignKeys: [
          {
            name: 'a_b',
            columns: ['b_id'],
            target: 'b',
            targetColumns: ['id'],
            deferrable: false,
            initiallyDeferred: false,
            onDelete: 'no action',
          },
        ],
      }),
      buildTableModel({
        schema: 'public',
        name: 'b',
        columns: [
          { name: 'id', type: 'int4' },
          { name: 'a_code', type: 'text', nullable: true },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            name: 'b_a',
            columns: ['a_code'],
            target: 'a',
            targetColumns: ['code'],
            deferrable: false,
            initiallyDeferred: false,
            onDelete: 'no action',
          },
        ],
      }),
    ])
    const cycle = planFlush(
      cyclic,
      changes({
        inserts: [
          { table: 'a', values: { code: 'x', b_id: 1 } },
          { table: 'b', values: { id: 1, a_code: 'x' } },
          { table: 'b', values: { id: 2, a_code: 'x' } },
        ],
      }),
    )
    const fixups = statements(cycle).filter((s) => s.fixup)
    expect(fixups.map((s) => [s.table, s.keys])).toEqual([['b', [1, 2]]])
  })

  it('refuses a row leaving out a key column no one fills, naming it', () => {
    const locked = buildSchemaModel([
      buildTableModel({
        schema: 'public',
        name: 'locked',
        columns: [
          {
            name: 'id',
            type: 'int4',
            sequence: 'public.locked_id_seq',
            sequenceDenied: true,
            hasDefault: true,
          },
        ],
        primaryKey: ['id'],
      }),
    ])
    expect(() => planFlush(locked, changes({ inserts: [{ table: 'locked', values: {} }] }))).toThrowError(
      expect.objectContaining({
        code: 'UNSUPPORTED_TABLE',
        column: 'id',
        message: expect.stringContaining('public.locked_id_seq'),
      }),
    )
    expect(() =>
      planFlush(schema, changes({ updates: [{ table: 'ticket', key: {}, set: { note: 'x' } }] })),
    ).toThrowError(expect.objectContaining({ code: 'INVALID_VALUE', column: 'code' }))
  })

  it('returns the key even where server values are not read back', () => {
    const set = changes({
      inserts: [
        { table: 'ticket', values: { note: 'q' } },
        { table: 'ticket', values: { code: 'T-2', note: 'r' } },
      ],
    })
    const off = statements(planFlush(schema, set, { serverValues: () => false }))
    expect(off.map((s) => s.returning)).toEqual([undefined, ['code']])
    expect(off[1]?.sql).toMatch(/returning "code"::text as r0$/)
    const on = statements(planFlush(schema, set, { serverValues: () => true }))
    expect(on.map((s) => s.returning)).toEqual([
      ['code', 'ref_code'],
      ['code', 'ref_code'],
    ])
  })
})
