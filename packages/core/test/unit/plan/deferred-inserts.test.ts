import { describe, expect, it } from 'vitest'
import { copyData } from '../../../src/flush/copy-data.ts'
import { simpleBatch } from '../../../src/flush/statement-text.ts'
import { type CompletedPlan, completePlan } from '../../../src/plan/complete-plan.ts'
import type { IdSource } from '../../../src/plan/draft.ts'
import { draftFlush } from '../../../src/plan/draft-flush.ts'
import { pendingInput } from '../../../src/plan/pending-input.ts'
import type { PlannedStatement } from '../../../src/plan/types.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import type { EntityState } from '../../../src/track/entity-state.ts'
import { rowOf } from '../../../src/track/row.ts'
import { SentSnapshot, wholeSnapshot } from '../../../src/track/sent-snapshot.ts'
import { UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'

// Large plain inserts of a flush (`copyRows` rows or more) are checked when drafted and written from
// their rows when completed: no text per value in between. What they send must be what the same rows
// send when their cells are made at once (the planner without `copyRows` at the draft), the COPY data
// byte for byte, and what the flush takes as sent of each entity the same.

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
  parent: {
    columns: { id: { type: 'int8', identity: 'by default' }, name: 'text' },
    primaryKey: ['id'],
  },
  child: {
    columns: { id: { type: 'int8', identity: 'by default' }, parent_id: 'int8', v: 'text' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['parent_id'], references: 'parent' }],
  },
  tag: {
    columns: { id: { type: 'int8', identity: 'by default' }, name: 'text' },
    primaryKey: ['id'],
    uniques: [['name']],
  },
  labeled: {
    columns: { id: { type: 'int8', identity: 'by default' }, tag_id: 'int8' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['tag_id'], references: 'tag' }],
  },
  hen: {
    columns: { id: { type: 'int8', identity: 'by default' }, egg_id: { type: 'int8', nullable: true } },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['egg_id'], references: 'egg' }],
  },
  egg: {
    columns: { id: { type: 'int8', identity: 'by default' }, hen_id: { type: 'int8', nullable: true } },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['hen_id'], references: 'hen' }],
  },
})

const table = (key: string) => schema.tables.get(key)!
// Upserts return their rows (a reference to one needs it); nothing else reads anything back.
const OPTIONS = { copyRows: 3, serverValues: (t: { key: string }) => t.key === 'tag' }

/** The ids the rows hold once assigned. */
const assigned: IdSource = (state, column) => state.row[column]

/** Ids into the rows without one, 100, 101... per table, as the id pool gives them. */
function assign(states: readonly EntityState[]): void {
  const next = new Map<string, number>()
  for (const s of states) {
    if (s.row.id !== undefined && s.row.id !== null) continue
    const id = next.get(s.table.key) ?? 100
    next.set(s.table.key, id + 1)
    s.row.id = String(id)
  }
}

/** A flush's plan of `uow`: drafted (large inserts only checked when `copyRows`), ids assigned, completed. */
function flushPlan(uow: UnitOfWork, copyRows: number | undefined, meanwhile = () => {}): CompletedPlan {
  const pending = uow.pending()
  const draft = draftFlush(schema, pendingInput(pending, uow), { copyRows })
  assign([...pending.inserts, ...pending.upserts.map((u) => u.state)])
  meanwhile()
  return completePlan(draft, assigned, OPTIONS)
}

/** Each statement with its COPY data (from its rows, or from its parameters), its parameters apart. */
function sending(completed: CompletedPlan) {
  return completed.plan.waves.flat().map((s: PlannedStatement) => ({
    statement: { ...s, params: s.copy && completed.copies.has(s) ? [] : s.params },
    data: s.copy ? String(Buffer.concat([...(completed.copies.get(s) ?? copyData(s))])) : undefined,
    fromRows: completed.copies.has(s),
  }))
}

/** The entities' sent values by creation index, as plain objects (a snapshot kept as sent made whole). */
function sentOf(uow: UnitOfWork, completed: CompletedPlan) {
  const states = uow.pending().inserts
  return states.map((s) => ({ ...whole(s, completed.sent.get(s)) }))
}

function whole(state: EntityState, sent: Record<string, unknown> | undefined) {
  return sent instanceof SentSnapshot ? wholeSnapshot(sent, state) : sent
}

/** `n` readings, each with its own values, one in four notes null, a json value on some. */
function readings(n: number, uow = new UnitOfWork()): UnitOfWork {
  for (let i = 0; i < n; i++)
    uow.add(
      table('reading'),
      rowOf({
        name: i % 5 === 0 ? `tab\there ${i}` : `row ${i}`,
        at: new Date(Date.UTC(2026, 0, 1) + i * 1_000),
        score: i * 0.37 + 0.01,
        note: i % 4 === 0 ? null : `note ${i}`,
        meta: i % 3 === 0 ? { n: i } : null,
      }),
      'new',
    )
  return uow
}

describe('a large insert checked when drafted, written from its rows when completed', () => {
  it('sends what its cells would send, byte for byte, and takes the same sent values', () => {
    const makers: Record<string, () => UnitOfWork> = {
      readings: () => readings(50),
      'children of new parents': () => {
        const uow = new UnitOfWork()
        const parents = Array.from(
          { length: 4 },
          (_, i) => uow.add(table('parent'), rowOf({ name: `p${i}` }), 'new').entity,
        )
        for (let i = 0; i < 12; i++)
          uow.add(table('child'), rowOf({ parent_id: parents[i % 4], v: `c${i}` }), 'new')
        return uow
      },
      'one Date shared by every row': () => {
        const uow = new UnitOfWork()
        const at = new Date(0)
        for (let i = 0; i < 5; i++)
          uow.add(table('reading'), rowOf({ name: `r${i}`, at, score: 1, note: null }), 'new')
        return uow
      },
    }
    for (const [name, make] of Object.entries(makers)) {
      const plain = make()
      const deferred = make()
      const cells = flushPlan(plain, undefined)
      const rows = flushPlan(deferred, 3)
      expect(sending(rows), name).toEqual(
        sending(cells).map((s) => ({ ...s, statement: { ...s.statement, params: [] }, fromRows: true })),
      )
      expect(sentOf(deferred, rows), name).toEqual(sentOf(plain, cells))
      // The message carries the data written from the rows.
      const batch = simpleBatch(rows.plan.waves.flat(), rows.copies)
      expect(batch.copies.map((chunks) => String(Buffer.concat([...chunks])))).toEqual(
        sending(rows).map((s) => s.data),
      )
    }
  })

  it('fails on a bad value of its last row when drafted, naming the row, before any id', () => {
    const uow = readings(10)
    const last = uow.pending().inserts[9]!
    last.row.score = Number.NaN
    expect(() => draftFlush(schema, pendingInput(uow.pending(), uow), { copyRows: 3 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_VALUE',
        table: 'reading',
        column: 'score',
        message: expect.stringContaining('reading.score'),
      }),
    )
    expect(last.row.id).toBeUndefined()
  })

  it('sends the values its rows held when drafted: a change meanwhile is not sent, its entity made whole first', () => {
    const uow = readings(10)
    const states = uow.pending().inserts
    const completed = flushPlan(uow, 3, () => {
      states[2]!.entity.name = 'renamed'
      ;(states[3]!.row.at as Date).setTime(0)
    })
    const [copy] = sending(completed)
    const lines = copy!.data!.split('\n')
    expect(lines[2]!.split('\t')[1]).toBe('row 2')
    expect(lines[3]!.split('\t')[2]).toBe('2026-01-01 00:00:03.000+00')
    expect(states[2]!.heldSnapshot).not.toBeInstanceOf(SentSnapshot) // made whole by the assignment
    expect(whole(states[2]!, completed.sent.get(states[2]!))?.name).toBe('row 2')
    expect((whole(states[3]!, completed.sent.get(states[3]!))!.at as Date).getTime()).toBe(
      Date.UTC(2026, 0, 1) + 3_000,
    )
  })

  it('sends the value it checked, not one made bad since: the bad one is left for the next flush', () => {
    const uow = readings(10)
    const states = uow.pending().inserts
    const completed = flushPlan(uow, 3, () => {
      states[7]!.entity.at = 'soon'
    })
    const [copy] = sending(completed)
    expect(copy!.data!.split('\n')[7]!.split('\t')[2]).toBe('2026-01-01 00:00:07.000+00')
    expect(states[7]!.snapshot!.at).toEqual(new Date(Date.UTC(2026, 0, 1) + 7_000))
  })

  it('makes its cells when a fix-up or a reference to an upsert needs them: the same plan', () => {
    const cycle = () => {
      const uow = new UnitOfWork()
      for (let i = 0; i < 4; i++) {
        const hen = uow.add(table('hen'), rowOf({ egg_id: null }), 'new')
        const egg = uow.add(table('egg'), rowOf({ hen_id: hen.entity }), 'new')
        hen.row.egg_id = egg.entity
      }
      return uow
    }
    const upserted = () => {
      const uow = new UnitOfWork()
      const tag = uow.upsert(table('tag'), rowOf({ name: 'x' }), { conflict: ['name'], update: [] })
      for (let i = 0; i < 4; i++) uow.add(table('labeled'), rowOf({ tag_id: tag.entity }), 'new')
      return uow
    }
    const normalized = (completed: CompletedPlan) =>
      sending(completed).map((s) => ({ ...s, statement: { ...s.statement, params: [] }, fromRows: false }))
    for (const make of [cycle, upserted]) {
      const cells = flushPlan(make(), undefined)
      const rows = flushPlan(make(), 3)
      expect(normalized(rows)).toEqual(normalized(cells))
      // The insert whose cells moved to a fix-up, or became lookups, sends them; any other its rows.
      const fromRows = sending(rows).filter((s) => s.fromRows)
      expect(fromRows.map((s) => s.statement.table)).toEqual(make === cycle ? ['egg'] : [])
      const made = rows.plan.waves.flat().filter((s) => s.kind === 'insert' && !rows.copies.has(s))
      for (const s of made) expect(s.params.length).toBeGreaterThan(0)
    }
  })

  it('writes its data as it is sent: a chunk at a time, each made when asked for, the same chunks again', () => {
    const uow = new UnitOfWork()
    const parent = uow.add(table('parent'), rowOf({ name: 'p' }), 'new')
    // About 60 bytes a row: 20,000 rows fill some 64 KB chunks. Each references the new parent: its
    // id is asked for as the row is written.
    const values = Array.from({ length: 20_000 }, (_, i) => `a value long enough to fill chunks, row ${i}`)
    for (const v of values) uow.add(table('child'), rowOf({ parent_id: parent.entity, v }), 'new')
    const pending = uow.pending()
    const draft = draftFlush(schema, pendingInput(pending, uow), { copyRows: 3 })
    assign(pending.inserts)
    let asked = 0
    const counting: IdSource = (state, column) => {
      asked++
      return assigned(state, column)
    }
    const completed = completePlan(draft, counting, OPTIONS)
    const statement = completed.plan.waves.flat().find((s) => s.table.endsWith('child'))!
    const data = completed.copies.get(statement)!
    const before = asked
    const chunks = data[Symbol.iterator]()
    const first = chunks.next()
    expect(first.done).toBe(false)
    const read = [String(first.value)]
    const rowsInFirst = read[0]!.split('\n').length - 1
    expect(rowsInFirst).toBeGreaterThan(0)
    expect(rowsInFirst).toBeLessThan(values.length)
    // Only the rows of the first chunk (and maybe the next row) were written so far.
    expect(asked - before).toBeLessThanOrEqual(rowsInFirst + 1)
    for (let next = chunks.next(); next.done !== true; next = chunks.next()) read.push(String(next.value))
    expect(read.length).toBeGreaterThan(2)
    expect(asked - before).toBe(values.length)
    const lines = read.join('').split('\n')
    expect(lines.length - 1).toBe(values.length)
    expect(lines[0]).toBe(`100\t100\t${values[0]}`)
    expect(lines[values.length - 1]).toBe(`${100 + values.length - 1}\t100\t${values.at(-1)}`)
    // Iterated again: the same chunks.
    expect([...data].map(String)).toEqual(read)
  })
})
