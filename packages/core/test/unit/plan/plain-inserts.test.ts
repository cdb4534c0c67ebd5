import { describe, expect, it } from 'vitest'
import type { SchemaModel } from '../../../src/model/model.ts'
import { type CompletedPlan, completePlan, givesAssignedId } from '../../../src/plan/complete-plan.ts'
import type { IdSource } from '../../../src/plan/draft.ts'
import { draftFlush } from '../../../src/plan/draft-flush.ts'
import { pendingInput } from '../../../src/plan/pending-input.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import type { BuildOptions } from '../../../src/plan/statements/build-statement.ts'
import type { FlushPlan } from '../../../src/plan/types.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import type { EntityState } from '../../../src/track/entity-state.ts'
import { rowOf } from '../../../src/track/row.ts'
import { UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'
import { sentValues, toChangeSet } from '../../support/change-set.ts'

// Flushes of plain inserts into tables whose keys a sequence fills, planned the way a flush plans
// them: validated and encoded column by column before any id is known (each key a slot), completed
// once the ids are assigned. What that makes must be what planning the same rows with their ids as
// plain values makes (`planFlush` of the change set), and what it sends of each entity what the unit
// of work would take (`sentValues`).

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

/** What decides the plan's COPYs and what it reads back. */
interface Context {
  readonly copyRows: number
  readonly serverValues: NonNullable<BuildOptions['serverValues']>
}

const CONTEXT: Context = { copyRows: 3, serverValues: () => true }

/** The ids the rows hold once assigned. */
const assigned: IdSource = (state, column) => state.row[column]

/** The flush's plan of `uow`: drafted now, completed with the ids `assign` then gives the rows. */
function flushPlan(
  uow: UnitOfWork,
  context: Context,
  assign: (states: readonly EntityState[]) => void,
): CompletedPlan {
  const pending = uow.pending()
  let draft = draftFlush(schema, pendingInput(pending, uow))
  assign(pending.inserts)
  if (givesAssignedId(draft, assigned)) draft = draftFlush(schema, pendingInput(pending, uow))
  return completePlan(draft, assigned, context)
}

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
    if (s.row[column.name] !== undefined && s.row[column.name] !== null) continue
    const id = next.get(s.table.key) ?? first
    next.set(s.table.key, id + step)
    s.row[column.name] = column.type === 'int8' || column.type === 'numeric' ? String(id) : id
  }
}

/** What planning the change set of `uow` now makes (ids assigned, as plain values). */
function fullPlan(uow: UnitOfWork, context: Context): FlushPlan {
  return planFlush(schema, toChangeSet(uow.pending(), uow), context)
}

describe('a flush of plain inserts, planned before its ids', () => {
  it('plans exactly what planning its change set plans, and sends what the unit of work takes, for every key type and table mix', () => {
    // Rows leaving nullable columns out read the server's NULL back, unless the policy says not to.
    const full = { ...CONTEXT, serverValues: () => true }
    const unread = { ...CONTEXT, serverValues: () => false }
    type Shape = Record<string, (i: number) => Record<string, unknown>>
    // Each: the rows per table, the context, and which tables go as COPY (the others as INSERT).
    const shapes: [Shape, number | Record<string, number>, Context, string[]][] = [
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
      const prepared = flushPlan(uow, context, (states) => assign(states))
      expect(prepared.plan, JSON.stringify(Object.keys(shape))).toEqual(fullPlan(uow, context))
      const copies = prepared.plan.waves
        .flat()
        .filter((s) => s.copy)
        .map((s) => s.table)
      expect(copies.sort()).toEqual([...copied].sort())
      const sent = sentValues(uow, pending)
      expect(prepared.sent.size).toBe(sent.size)
      for (const [state, values] of sent) expect({ ...prepared.sent.get(state) }).toEqual({ ...values })
    }
  })

  it('plans every other flush of new rows as planning its change set does, or fails as it fails', () => {
    // Each case is four valid rows of `item` changed in one respect: the same plan, or the same error,
    // both ways (a value that does not encode fails before any id is assigned).
    const same = (uow: UnitOfWork, name: string) => {
      let error: unknown
      let plan: FlushPlan | undefined
      try {
        plan = flushPlan(uow, CONTEXT, (states) => assign(states)).plan
      } catch (e) {
        error = e
      }
      if (error !== undefined) {
        expect(() => fullPlan(uow, CONTEXT), name).toThrow(
          expect.objectContaining({ code: (error as { code: string }).code }),
        )
        return 'failed'
      }
      expect(plan, name).toEqual(fullPlan(uow, CONTEXT))
      return 'planned'
    }
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
      )
    expect(same(items(), 'four rows')).toBe('planned')
    const cases: Record<string, [() => UnitOfWork, 'planned' | 'failed']> = {
      'a key the application gave': [
        () =>
          items((v, i) => {
            if (i === 2) v.id = '7'
          }),
        'planned',
      ],
      'a key given as null': [
        () =>
          items((v, i) => {
            if (i === 2) v.id = null
          }),
        'planned',
      ],
      'rows holding different columns': [
        () =>
          items((v, i) => {
            if (i === 3) delete v.meta
          }),
        'planned',
      ],
      'a property that is no column': [
        () =>
          items((v, i) => {
            if (i === 0) v.nope = 1
          }),
        'planned',
      ],
      'a value that does not encode': [
        () =>
          items((v, i) => {
            if (i === 3) v.label = 'nul \u0000'
          }),
        'failed',
      ],
      'an undefined value': [
        () =>
          items((v, i) => {
            if (i === 1) v.label = undefined
          }),
        'failed',
      ],
      'a value that is an entity': [
        () => {
          const uow = unitOf({ parent: (i) => ({ name: `p${i}` }) })
          const parent = uow.pending().inserts[0]!.entity
          for (let i = 0; i < 4; i++)
            uow.add(schema.tables.get('child')!, rowOf({ parent_id: parent }), 'new')
          return uow
        },
        'planned',
      ],
      'a foreign key between the tables of the flush': [
        () => unitOf({ parent: (i) => ({ name: `p${i}` }), child: () => ({ parent_id: '100' }) }),
        'planned',
      ],
      'a table referencing itself': [() => unitOf({ node: () => ({ up: null }) }), 'planned'],
      'a value the server fills, read back': [() => unitOf({ stamped: () => ({}) }), 'planned'],
    }
    for (const [name, [uow, outcome]] of Object.entries(cases)) expect(same(uow(), name), name).toBe(outcome)
    // Controls: each table of the cases above alone, or reading back nothing.
    expect(same(unitOf({ parent: (i) => ({ name: `p${i}` }) }), 'parent')).toBe('planned')
    expect(same(unitOf({ child: () => ({ parent_id: '1' }) }), 'child')).toBe('planned')
    const stamped = unitOf({ stamped: () => ({}) })
    const unread = { ...CONTEXT, serverValues: () => false }
    expect(flushPlan(stamped, unread, (states) => assign(states)).plan).toEqual(fullPlan(stamped, unread))
    expect(same(items(undefined, 1), 'one row')).toBe('planned')
    expect(same(new UnitOfWork(), 'nothing')).toBe('planned')
  })

  it('sorts rows whose ids are not ascending, and refuses rows without ids or with one id twice', () => {
    const unread = { ...CONTEXT, serverValues: () => false }
    const rows = () => unitOf({ item: (i) => ({ label: `l${i}` }) })
    // No id assigned: nothing is sent without its key.
    expect(() => flushPlan(rows(), unread, () => {})).toThrow(
      expect.objectContaining({ code: 'INVALID_VALUE' }),
    )
    const descending = rows()
    const backwards = flushPlan(descending, unread, (states) => assign(states, 100, -1))
    expect(backwards.plan).toEqual(fullPlan(descending, unread))
    expect(backwards.plan.waves[0]?.[0]?.keys).toEqual(['97', '98', '99', '100'])
    const twice = rows()
    expect(() => flushPlan(twice, unread, (states) => assign(states, 100, 0))).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_KEY' }),
    )
    expect(() => fullPlan(twice, unread)).toThrow(expect.objectContaining({ code: 'DUPLICATE_KEY' }))
    const ascending = flushPlan(rows(), unread, (states) => assign(states, 100, 1))
    expect(ascending.plan.waves[0]?.[0]?.keys).toEqual(['100', '101', '102', '103'])
  })

  it('takes the snapshots from the values encoded, not from the entities as they are meanwhile', () => {
    const uow = unitOf(
      { item: (i) => ({ label: `l${i}`, meta: { n: i } }), counter: (i) => ({ n: i }) },
      10_000,
    )
    const pending = uow.pending()
    const states = pending.inserts
    const draft = draftFlush(schema, pendingInput(pending, uow))
    assign(states)
    const expected = new Map([...sentValues(uow, uow.pending())].map(([s, v]) => [s, { ...v }]))
    // Changed after planning, before and while the ids are fetched (the flush is in flight).
    states[0]!.row.label = 'later'
    ;(states[1]!.row.meta as { n: number }).n = 99
    states[9_999]!.row.label = 'later'
    states[19_999]!.row.n = 42
    const prepared = completePlan(draft, assigned, { ...CONTEXT, serverValues: () => false })
    expect(prepared.sent.size).toBe(20_000)
    for (const [state, values] of expected) expect(prepared.sent.get(state)).toEqual(values)
    expect(prepared.sent.get(states[1]!)?.meta).not.toBe(states[1]!.row.meta)
  })
})
