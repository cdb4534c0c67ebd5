import { describe, expect, it } from 'vitest'
import { type ColumnarContext, columnarPlan, encodeColumnar } from '../../../src/flush/columnar-inserts.ts'
import { withCopies } from '../../../src/plan/copy-statements.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import { withServerValues } from '../../../src/plan/server-values.ts'
import type { FlushPlan } from '../../../src/plan/types.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import type { SchemaModel } from '../../../src/schema/model.ts'
import { toChangeSet } from '../../../src/track/changes.ts'
import type { EntityState } from '../../../src/track/entity-state.ts'
import { rowOf, UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'

/** Tables whose keys a sequence fills: plain ones, one referencing another, one referencing itself. */
const declared = defineSchema({
  item: {
    columns: {
      id: { type: 'int8', identity: 'by default' },
      label: 'text',
      weight: { type: 'float8', nullable: true },
      tags: { type: 'text[]', nullable: true },
      meta: { type: 'jsonb', nullable: true },
    },
    primaryKey: ['id'],
  },
  counter: {
    columns: { id: { type: 'int4', identity: 'always' }, n: 'int4' },
    primaryKey: ['id'],
  },
  amount: {
    columns: { id: { type: 'numeric', sequence: 'public.amount_id_seq' }, v: 'numeric' },
    primaryKey: ['id'],
  },
  parent: {
    columns: { id: { type: 'int8', identity: 'by default' }, name: 'text' },
    primaryKey: ['id'],
  },
  child: {
    columns: { id: { type: 'int8', identity: 'by default' }, parent_id: 'int8' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['parent_id'], references: 'parent' }],
  },
  node: {
    columns: { id: { type: 'int8', identity: 'by default' }, up: { type: 'int8', nullable: true } },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['up'], references: 'node' }],
  },
  stamped: {
    columns: { id: { type: 'int8', identity: 'by default' }, at: { type: 'timestamptz', default: true } },
    primaryKey: ['id'],
  },
  given: {
    columns: { id: 'int8', v: 'text' },
    primaryKey: ['id'],
  },
})

/** With `guarded`: `item`'s twin that COPY would not treat like INSERT (row-level security, rules). */
const schema: SchemaModel = {
  tables: new Map([
    ...declared.tables,
    [
      'guarded',
      {
        ...declared.tables.get('item')!,
        key: 'guarded',
        name: 'guarded',
        sqlName: '"public"."guarded"',
        copyable: false,
      },
    ],
  ]),
}

const CONTEXT: ColumnarContext = { copyRows: 3, serverValues: () => true }

/** A unit of work holding `count` new rows per table (values by row index; a table's own count if given). */
function unitOf(
  rows: Readonly<Record<string, (i: number) => Record<string, unknown>>>,
  count: number | Readonly<Record<string, number>> = 4,
) {
  const uow = new UnitOfWork()
  for (const [key, valuesOf] of Object.entries(rows)) {
    const table = schema.tables.get(key)!
    const n = typeof count === 'number' ? count : (count[key] ?? 4)
    for (let i = 0; i < n; i++) uow.add(table, rowOf(valuesOf(i)), 'new')
  }
  return uow
}

/** Writes ids into the rows without one, as the id pool does: `first`, `first + 1`... per table. */
function assign(states: readonly EntityState[], first = 100, step = 1): void {
  const next = new Map<string, number>()
  for (const s of states) {
    const column = s.table.columnsByName.get(s.table.primaryKey[0]!)!
    const id = next.get(s.table.key) ?? first
    next.set(s.table.key, id + step)
    s.row[column.name] = column.type === 'int8' || column.type === 'numeric' ? String(id) : id
  }
}

/** What the full planner makes of `uow` now (ids assigned): the plan the flush would send. */
function fullPlan(uow: UnitOfWork, context: ColumnarContext): FlushPlan {
  const changes = toChangeSet(uow.pending(), uow)
  const reading = withServerValues(planFlush(schema, changes), schema, context.serverValues)
  return withCopies(reading, schema, context.copyRows)
}

describe('encodeColumnar and columnarPlan', () => {
  it('plan exactly what the full planner plans, and send what it sends, for every key type and table mix', async () => {
    // Rows leaving nullable columns out go this way only where the server's NULL is not read back.
    const full = { ...CONTEXT, serverValues: () => true }
    const unread = { ...CONTEXT, serverValues: () => false }
    type Shape = Record<string, (i: number) => Record<string, unknown>>
    // Each: the rows per table, the context, and which tables go as COPY (the others as INSERT).
    const shapes: [Shape, number | Record<string, number>, ColumnarContext, string[]][] = [
      [
        { item: (i) => ({ label: `a\tb ${i}`, weight: i / 3, tags: ['x', null], meta: { n: i } }) },
        4,
        full,
        ['item'],
      ],
      [{ item: (i) => ({ label: `only ${i}` }) }, 4, unread, ['item']],
      [{ counter: (i) => ({ n: i }), amount: (i) => ({ v: `${i}.50` }) }, 4, full, ['counter', 'amount']],
      [
        { parent: (i) => ({ name: `p${i}` }), item: (i) => ({ label: String(i), weight: null }) },
        4,
        unread,
        ['parent', 'item'],
      ],
      // Fewer rows than copyRows, or a table COPY would not treat like INSERT: one INSERT each.
      [{ item: (i) => ({ label: `one ${i}`, weight: null, tags: null, meta: [i] }) }, 1, full, []],
      [{ counter: (i) => ({ n: i }), amount: (i) => ({ v: `${i}` }) }, 2, full, []],
      [
        {
          item: (i) => ({ label: `l${i}`, weight: 1, tags: null, meta: null }),
          parent: (i) => ({ name: `p${i}` }),
        },
        { item: 5, parent: 1 },
        full,
        ['item'],
      ],
      [
        {
          guarded: (i) => ({ label: `g${i}`, weight: null, tags: null, meta: null }),
          counter: (i) => ({ n: i }),
        },
        4,
        full,
        ['counter'],
      ],
      [
        { item: (i) => ({ label: `l${i}`, weight: 1, tags: null, meta: null }) },
        4,
        { ...full, copyRows: Number.POSITIVE_INFINITY },
        [],
      ],
    ]
    for (const [shape, count, context, copied] of shapes) {
      const uow = unitOf(shape, count)
      const pending = uow.pending()
      const columnar = encodeColumnar(pending.inserts, context)
      expect(columnar, JSON.stringify(Object.keys(shape))).toBeDefined()
      assign(pending.inserts)
      const prepared = columnarPlan(columnar!)!
      expect(prepared.plan).toEqual(fullPlan(uow, context))
      const copies = prepared.plan.waves
        .flat()
        .filter((s) => s.copy)
        .map((s) => s.table)
      expect(copies.sort()).toEqual([...copied].sort())
      await prepared.whileSending()
      const sent = uow.sentValues(pending)
      expect(prepared.sent.size).toBe(sent.size)
      for (const [state, values] of sent) expect({ ...prepared.sent.get(state) }).toEqual({ ...values })
    }
  })

  it('leave every other flush to the full planner', () => {
    // Each case is four valid rows of `item` (which go the columnar way) changed in one respect.
    const item = (i: number): Record<string, unknown> => ({
      label: `l${i}`,
      weight: null,
      tags: null,
      meta: null,
    })
    const items = (change: (values: Record<string, unknown>, i: number) => void = () => {}, count = 4) =>
      unitOf(
        {
          item: (i) => {
            const values = item(i)
            change(values, i)
            return values
          },
        },
        count,
      ).pending().inserts
    expect(encodeColumnar(items(), CONTEXT)).toBeDefined()
    const cases: Record<string, () => readonly EntityState[]> = {
      'a key the application gave': () =>
        items((v, i) => {
          if (i === 2) v.id = '7'
        }),
      'a key given as null': () =>
        items((v, i) => {
          if (i === 2) v.id = null
        }),
      'rows holding different columns': () =>
        items((v, i) => {
          if (i === 3) delete v.meta
        }),
      'a property that is no column': () =>
        items((v, i) => {
          if (i === 0) v.nope = 1
        }),
      'a value that does not encode': () =>
        items((v, i) => {
          if (i === 3) v.label = 'nul \u0000'
        }),
      'an undefined value': () =>
        items((v, i) => {
          if (i === 1) v.label = undefined
        }),
      'a value that is an entity': () => {
        const uow = unitOf({ parent: (i) => ({ name: `p${i}` }) })
        const parent = uow.pending().inserts[0]!.entity
        for (let i = 0; i < 4; i++) uow.add(schema.tables.get('child')!, rowOf({ parent_id: parent }), 'new')
        return uow.pending().inserts.filter((s) => s.table.key === 'child')
      },
      'a foreign key between the tables of the flush': () =>
        unitOf({ parent: (i) => ({ name: `p${i}` }), child: () => ({ parent_id: '1' }) }).pending().inserts,
      'a table referencing itself': () => unitOf({ node: () => ({ up: null }) }).pending().inserts,
      'a value the server fills, read back': () => unitOf({ stamped: () => ({}) }).pending().inserts,
    }
    for (const [name, states] of Object.entries(cases)) {
      expect(encodeColumnar(states(), CONTEXT), name).toBeUndefined()
    }
    // Controls: each table of the cases above goes the columnar way alone, or read back nothing.
    expect(
      encodeColumnar(unitOf({ parent: (i) => ({ name: `p${i}` }) }).pending().inserts, CONTEXT),
    ).toBeDefined()
    expect(
      encodeColumnar(unitOf({ child: () => ({ parent_id: '1' }) }).pending().inserts, CONTEXT),
    ).toBeDefined()
    const stamped = unitOf({ stamped: () => ({}) }).pending().inserts
    expect(encodeColumnar(stamped, { ...CONTEXT, serverValues: () => false })).toBeDefined()
    expect(encodeColumnar(items(undefined, 1), CONTEXT)).toBeDefined()
    expect(encodeColumnar([], CONTEXT)).toBeUndefined()
  })

  it('give the plan back to the full planner when the ids are missing or not ascending', () => {
    const uow = unitOf({ item: (i) => ({ label: `l${i}` }) })
    const states = uow.pending().inserts
    const columnar = encodeColumnar(states, { ...CONTEXT, serverValues: () => false })!
    expect(columnarPlan(columnar)).toBeUndefined() // no ids yet
    assign(states, 100, -1)
    expect(columnarPlan(columnar)).toBeUndefined()
    assign(states, 100, 0) // one id twice
    expect(columnarPlan(columnar)).toBeUndefined()
    assign(states, 100, 1)
    expect(columnarPlan(columnar)?.plan.waves[0]?.[0]?.keys).toEqual(['100', '101', '102', '103'])
  })

  it('take the snapshots from the values encoded, not from the entities as they are meanwhile', async () => {
    const uow = unitOf(
      { item: (i) => ({ label: `l${i}`, meta: { n: i } }), counter: (i) => ({ n: i }) },
      10_000,
    )
    const states = uow.pending().inserts
    const columnar = encodeColumnar(states, { ...CONTEXT, serverValues: () => false })!
    assign(states)
    const expected = new Map([...uow.sentValues(uow.pending())].map(([s, v]) => [s, { ...v }]))
    const prepared = columnarPlan(columnar)!
    expect(prepared.sent.size).toBe(0)
    // Changed after planning, before and while the snapshots are taken (the flush is in flight).
    states[0]!.row.label = 'later'
    ;(states[1]!.row.meta as { n: number }).n = 99
    const taking = prepared.whileSending()
    expect(prepared.sent.size, 'a slice per turn of the event loop').toBeLessThan(20_000)
    states[9_999]!.row.label = 'later'
    states[19_999]!.row.n = 42
    await taking
    expect(prepared.sent.size).toBe(20_000)
    for (const [state, values] of expected) expect(prepared.sent.get(state)).toEqual(values)
    expect(prepared.sent.get(states[1]!)?.meta).not.toBe(states[1]!.row.meta)
    await prepared.whileSending()
    expect(prepared.sent.size).toBe(20_000)
  })
})
