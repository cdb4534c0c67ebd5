import { describe, expect, it } from 'vitest'
import { planUnitOfWork } from '../../../src/flush/flush-unit-of-work.ts'
import { planStatements } from '../../../src/plan/format-plan.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { rowOf } from '../../../src/track/row.ts'
import { UnitOfWork } from '../../../src/unit-of-work/unit-of-work.ts'
import { A, B, library } from './fixtures.ts'

const table = (key: string) => library.tables.get(key)!
const settings = { schema: library, serverValues: () => true, copyRows: 1 }

describe('references to upserted rows', () => {
  it('are looked up by the conflict values in the referencing insert, after the upsert, never as COPY', () => {
    const uow = new UnitOfWork()
    // A key given to an upsert is no help: the row may exist with another one.
    const tag = uow.upsert(table('tag'), rowOf({ id: 7, name: 'sf' }), { conflict: ['name'], update: [] })
    uow.add(table('book_tag'), rowOf({ book_id: A, tag_id: tag.entity }), 'new')
    uow.add(table('book_tag'), rowOf({ book_id: B, tag_id: 5 }), 'new')
    const plan = planUnitOfWork(uow, settings)
    expect(plan.waves.map((wave) => wave.map((s) => s.table))).toEqual([['tag'], ['book_tag']])
    const [upsert, link] = planStatements(plan)
    expect(upsert!.sql).toBe(
      'insert into "public"."tag" ("id", "name") values ($1::text::int8, $2::text::varchar) ' +
        'on conflict ("name") do update set "name" = "tag"."name" returning "id"::text as r0, "name"::text as r1',
    )
    expect(upsert!.returning).toEqual(['id', 'name'])
    expect(link!.sql).toBe(
      'insert into "public"."book_tag" ("book_id", "tag_id") select d."book_id"::uuid, ' +
        'coalesce(d."tag_id"::int8, (select x."id" from "public"."tag" as x where x."name" = d."$l0_0"::varchar), ' +
        `case when d."$l0_0" is not null then ('pipeflush:lookup:{"table":"book_tag","column":"tag_id","target":"tag"}' || ` +
        'pg_catalog.left(pg_catalog.random()::text, 0))::int::text::int8 end) ' +
        'from unnest($1::text[], $2::text[], $3::text[]) as d("book_id", "tag_id", "$l0_0")',
    )
    expect(link!.params).toEqual([
      [A, B],
      [null, '5'],
      ['sf', null],
    ])
    expect(link!.lookups).toEqual([{ column: 'tag_id', table: 'tag', conflict: ['name'] }])
    expect(link!.copy).toBeUndefined()
  })

  it('take a composite conflict key, in a one-row statement and in an update of a stored row', () => {
    const schema = defineSchema({
      edition: {
        columns: { id: 'int8', publisher: 'text', year: 'int4', label: { type: 'text', nullable: true } },
        primaryKey: ['id'],
        uniques: [['publisher', 'year']],
      },
      printing: {
        columns: { id: 'int8', edition_id: 'int8' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['edition_id'], references: 'edition' }],
      },
    })
    const uow = new UnitOfWork()
    const spec = { conflict: ['publisher', 'year'], update: ['label'] }
    const edition = schema.tables.get('edition')!
    const printing = schema.tables.get('printing')!
    const e = uow.upsert(edition, rowOf({ id: 1, publisher: 'P', year: 2020, label: 'x' }), spec)
    uow.add(printing, rowOf({ id: 10, edition_id: e.entity }), 'new')
    const stored = uow.add(printing, rowOf({ id: 11, edition_id: 3 }), 'managed')
    stored.entity['edition_id'] = e.entity
    const plan = planUnitOfWork(uow, { ...settings, schema })
    const [upsert, ...rest] = planStatements(plan)
    expect(upsert!.sql).toContain(
      'on conflict ("publisher", "year") do update set "label" = excluded."label" returning',
    )
    const insert = rest.find((s) => s.kind === 'insert')!
    expect(insert.sql).toBe(
      'insert into "public"."printing" ("id", "edition_id") values ($1::text::int8, coalesce($2::text::int8, ' +
        '(select x."id" from "public"."edition" as x where x."publisher" = $3::text::text and x."year" = $4::text::int4), ' +
        'case when $3::text is not null and $4::text is not null then ' +
        `('pipeflush:lookup:{"table":"printing","column":"edition_id","target":"edition"}' || ` +
        'pg_catalog.left(pg_catalog.random()::text, 0))::int::text::int8 end))',
    )
    expect(insert.params).toEqual(['10', null, 'P', '2020'].map((t) => [t]))
    const update = rest.find((s) => s.kind === 'update')!
    expect(update.sql).toContain(
      'set "edition_id" = coalesce($2::text::int8, (select x."id" from "public"."edition" as x where x."publisher" = $3::text::text and x."year" = $4::text::int4), case when',
    )
    expect(update.params).toEqual(['11', null, 'P', '2020'].map((t) => [t]))
  })

  it('fail before anything is sent when the conflict key changed after the upsert, or when two conflict sets meet in one column', () => {
    const uow = new UnitOfWork()
    const tag = uow.upsert(table('tag'), rowOf({ id: 7, name: 'sf' }), { conflict: ['name'], update: [] })
    uow.add(table('book_tag'), rowOf({ book_id: A, tag_id: tag.entity }), 'new')
    tag.entity['name'] = 'fantasy'
    expect(() => planUnitOfWork(uow, settings)).toThrow(
      expect.objectContaining({ code: 'INVALID_VALUE', table: 'book_tag', column: 'tag_id' }),
    )
    tag.entity['name'] = 'sf'
    const byId = uow.upsert(table('tag'), rowOf({ id: 8, name: 'x' }), { conflict: ['id'], update: ['name'] })
    uow.add(table('book_tag'), rowOf({ book_id: B, tag_id: byId.entity }), 'new')
    expect(() => planUnitOfWork(uow, settings)).toThrow(/different conflict columns/)
  })
})
