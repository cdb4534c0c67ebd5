import { describe, expect, it } from 'vitest'
import { completePlan } from '../../../src/plan/complete-plan.ts'
import type { IdSource } from '../../../src/plan/draft.ts'
import { draftFlush } from '../../../src/plan/draft-flush.ts'
import { pendingInput } from '../../../src/plan/pending-input.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import type { EntityState } from '../../../src/track/entity-state.ts'
import { rowOf } from '../../../src/track/row.ts'
import { SentSnapshot } from '../../../src/track/sent-snapshot.ts'
import { UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'

// The entities of a large insert sent as COPY keep their snapshot as sent: their rows stand for what
// was sent, only what may change in place (Dates, json) and the keys references were sent as kept
// apart. Dirty checking must find exactly what it finds with whole snapshots, and the snapshot read
// must be the whole one.

const schema = defineSchema({
  reading: {
    columns: {
      id: { type: 'int8', identity: 'by default' },
      name: 'text',
      at: 'timestamptz',
      score: 'float8',
      note: { type: 'text', nullable: true },
      meta: { type: 'jsonb', nullable: true },
    },
    primaryKey: ['id'],
  },
  word: {
    columns: { id: { type: 'int8', identity: 'by default' }, text: 'text', n: 'int4' },
    primaryKey: ['id'],
  },
  stamp: {
    columns: { id: { type: 'int8', identity: 'by default' }, at: 'timestamptz', v: 'text' },
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
})

const table = (key: string) => schema.tables.get(key)!
const assigned: IdSource = (state, column) => state.row[column]

/**
 * Flushes `uow` as a flush does (large inserts from 3 rows: `copyRows`), `beforeWritten` running once
 * it is drafted (the connection awaited), `meanwhile` once the plan is complete and its COPY data
 * written (the flush in flight),
 * then settles it as committed. Returns the flushed entities.
 */
function flushed(
  uow: UnitOfWork,
  copyRows: number | undefined = 3,
  meanwhile = () => {},
  beforeWritten = () => {},
): EntityState[] {
  const edits = uow.edits
  const pending = uow.pending()
  const draft = draftFlush(schema, pendingInput(pending, uow), { copyRows })
  beforeWritten()
  let next = 100
  for (const s of pending.inserts) s.row.id = String(next++)
  const { sent, copies } = completePlan(draft, assigned, { copyRows: 3, serverValues: () => false })
  // The drivers write the COPY data in the run that completed the plan (see `copyRows`).
  for (const data of copies.values()) for (const _ of data);
  meanwhile()
  uow.applyFlushed(pending, sent, 0, undefined, edits)
  return [...pending.inserts]
}

function readings(n = 6): UnitOfWork {
  const uow = new UnitOfWork()
  for (let i = 0; i < n; i++)
    uow.add(
      table('reading'),
      rowOf({
        name: `row ${i}`,
        at: new Date(Date.UTC(2026, 0, 1) + i),
        score: i + 0.5,
        note: i % 2 === 0 ? null : `n${i}`,
        meta: { i },
      }),
      'new',
    )
  return uow
}

/** The pending updates of `uow`: each entity's changed columns. */
function changes(uow: UnitOfWork): string[][] {
  return uow.pending().updates.map((u) => [...u.changed])
}

describe('entities of a large insert, their snapshot kept as sent', () => {
  it('are managed and unchanged after the flush, their snapshot the one a whole copy would be', () => {
    const kept = readings()
    const states = flushed(kept)
    const copied = readings()
    const wholes = flushed(copied, undefined)
    expect(states.map((s) => s.status)).toEqual(states.map(() => 'managed'))
    for (const s of states) expect(s.heldSnapshot).toBeInstanceOf(SentSnapshot)
    expect(changes(kept)).toEqual([])
    expect(states.map((s) => ({ ...s.snapshot }))).toEqual(wholes.map((s) => ({ ...s.snapshot })))
    // Read, it is made whole (a copy of the Date, not the row's).
    expect(states[0]!.heldSnapshot).not.toBeInstanceOf(SentSnapshot)
    expect(states[0]!.snapshot!.at).not.toBe(states[0]!.row.at)
    expect(changes(kept)).toEqual([])
  })

  it('see a Date or json changed in place, and an assignment, as a whole snapshot does', () => {
    const uow = readings()
    const [a, b, c, d] = flushed(uow)
    ;(a!.row.at as Date).setTime(0)
    ;(b!.row.meta as { i: number }).i = 99
    c!.entity.name = 'renamed'
    expect(c!.heldSnapshot).not.toBeInstanceOf(SentSnapshot) // made whole before the assignment
    expect(c!.snapshot!.name).toBe('row 2')
    d!.entity.at = new Date(d!.row.at as Date) // the same instant: no change
    expect(changes(uow).sort()).toEqual([['at'], ['meta'], ['name']])
  })

  it('of a table whose values are all plain share one snapshot: nothing per entity', () => {
    const uow = new UnitOfWork()
    for (let i = 0; i < 5; i++) uow.add(table('word'), rowOf({ text: `w${i}`, n: i }), 'new')
    const states = flushed(uow)
    expect(new Set(states.map((s) => s.heldSnapshot)).size).toBe(1)
    states[1]!.entity.n = 7
    expect(changes(uow)).toEqual([['n']])
    expect(states[1]!.snapshot).toEqual(expect.objectContaining({ id: '101', text: 'w1', n: 1 }))
    expect(states[2]!.snapshot).toEqual(expect.objectContaining({ id: '102', text: 'w2', n: 2 }))
  })

  it("of a table whose one kept column holds Dates hold the Dates' times alone", () => {
    const uow = new UnitOfWork()
    for (let i = 0; i < 4; i++) uow.add(table('stamp'), rowOf({ at: new Date(1_000 * i), v: `v${i}` }), 'new')
    const states = flushed(uow)
    expect(states.map((s) => s.heldSnapshot)).toEqual([0, 1_000, 2_000, 3_000])
    ;(states[2]!.row.at as Date).setTime(7)
    expect(changes(uow)).toEqual([['at']])
    expect(states[3]!.snapshot).toEqual(expect.objectContaining({ id: '103', at: new Date(3_000), v: 'v3' }))
    expect(states[3]!.snapshot!.at).not.toBe(states[3]!.row.at)
  })

  it('assigned while the flush is in flight: the snapshot is what was sent, the assignment pending', () => {
    const uow = readings()
    const before = uow.pending().inserts
    const states = flushed(uow, 3, () => {
      before[1]!.entity.name = 'in flight'
      ;(before[2]!.row.at as Date).setTime(5)
    })
    expect(states[1]!.snapshot!.name).toBe('row 1')
    expect(changes(uow)).toEqual([['name'], ['at']])
  })

  it('assigned after the flush was called, before its rows are written: the values at the call are sent', () => {
    const uow = readings()
    const before = uow.pending().inserts
    const states = flushed(uow, 3, undefined, () => {
      before[4]!.entity.note = 'before written'
      ;(before[5]!.row.meta as { i: number }).i = -1
    })
    expect(states[4]!.snapshot!.note).toBe(null)
    expect(states[5]!.snapshot!.meta).toEqual({ i: 5 })
    expect(changes(uow)).toEqual([['note'], ['meta']])
  })

  it('referencing new entities: the rows hold the ids they were sent with, no change pending', () => {
    const uow = new UnitOfWork()
    const parents = [0, 1, 2].map((i) => uow.add(table('parent'), rowOf({ name: `p${i}` }), 'new'))
    for (let i = 0; i < 6; i++) uow.add(table('child'), rowOf({ parent_id: parents[i % 3]!.entity }), 'new')
    const states = flushed(uow)
    const children = states.filter((s) => s.table.key === 'child')
    expect(children.map((s) => s.row.parent_id)).toEqual(['100', '101', '102', '100', '101', '102'])
    for (const s of children) expect(s.heldSnapshot).toBeInstanceOf(SentSnapshot)
    expect(changes(uow)).toEqual([])
    children[0]!.entity.parent_id = parents[1]!.entity
    expect(changes(uow)).toEqual([['parent_id']])
  })
})
