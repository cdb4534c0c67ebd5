import {
  type ColumnModel,
  decodeValue,
  type EntityManager,
  type ErrorCode,
  isPipeflushError,
  type PipelineMode,
  readSchema,
} from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { openClient, type TypeTestClient } from './open-client.ts'
import { ACCEPTS_ANY_TEXT, BAD_TEXTS, CUSTOM_TYPES_DDL } from './samples.ts'
import {
  type CatalogType,
  catalogTypes,
  findBadText,
  findSamples,
  HELPER_FUNCTIONS,
  skipReason,
  typeLabel,
} from './type-catalog.ts'

/**
 * Every type the server offers, read from its catalog at test time (base, enum, range, multirange,
 * domain and composite types of pg_catalog, information_schema, every extension the server ships that
 * the test database can create, and types this file creates), each as a column and as an array
 * element, written and read through every path in every pipeline mode: insert, update, upsert, NULL,
 * found by value, as a primary key; bad text of each type rejected with nothing committed, then fixed.
 */
const db = useTestDatabase()
const TABLE = 'pf_types'

/** A JS value as written, and as read back. */
interface Value {
  readonly write: unknown
  readonly read: unknown
}

interface Case {
  readonly type: CatalogType
  readonly label: string
  readonly scalar: string
  readonly array: string | undefined
  /** One or two values (`v(1)` falls back to the first). */
  readonly values: readonly Value[]
  readonly bad: { readonly value: unknown; readonly code: ErrorCode; readonly sqlState?: string }
  /** The table whose primary key `k` is of this type, when PostgreSQL allows it (a default btree operator class). */
  readonly pkTable: string | undefined
  /** Whether rows can be found by a value of the type (see `findable`). */
  readonly equality: boolean
  /** Whether arrays of the type have `=` (it needs the type's default btree or hash equality). */
  readonly arrayEquality: boolean
  /**
   * Whether a JS array in a find means a list of values (not for an array or a domain over one, whose
   * values are arrays, nor for jsonb, whose values may be JSON arrays).
   */
  readonly listFind: boolean
}

const report = {
  extensions: [] as string[],
  extensionFailures: [] as string[],
  skipped: [] as string[],
  missing: [] as string[],
  stale: [] as string[],
  noBadText: [] as string[],
  noPrimaryKey: [] as string[],
}
let cases: Case[] = []
let admin: postgres.Sql

/** The bad JS value of each known type: one its codec rejects before anything is sent. */
const BAD_JS: Readonly<Record<string, unknown>> = {
  int2: 'x',
  int4: 'x',
  int8: 'x',
  numeric: 'x',
  float4: 'x',
  float8: 'x',
  text: 'a\u0000',
  varchar: 'a\u0000',
  bpchar: 'a\u0000',
  bool: 'x',
  date: 'x',
  timestamp: 'x',
  timestamptz: 'x',
  uuid: 'x',
  json: 1n,
  jsonb: 1n,
  bytea: 'x',
  enum: 'not a label',
}

function columnName(prefix: string, t: CatalogType, used: Set<string>): string {
  const base = `${prefix}_${t.name}`.slice(0, 50)
  let name = base
  for (let i = 2; used.has(name); i++) name = `${base}_${i}`
  used.add(name)
  return name
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

beforeAll(async () => {
  admin = db.connect({ max: 1, proxied: false }).sql
  await admin.unsafe(HELPER_FUNCTIONS)
  const extensions = await admin.unsafe<{ name: string; state: string | null }[]>(
    `select e.name, pg_temp.pf_state(format('create extension if not exists %I cascade', e.name)) as state
     from pg_catalog.pg_available_extensions e where e.installed_version is null order by e.name`,
  )
  for (const e of extensions) {
    if (e.state === null) report.extensions.push(e.name)
    else report.extensionFailures.push(`${e.name} (${e.state.split('\n')[0]})`)
  }
  await admin.unsafe(CUSTOM_TYPES_DDL)
  const all = await catalogTypes(admin)
  const tested: CatalogType[] = []
  for (const t of all) {
    const why = skipReason(t)
    if (why === undefined) tested.push(t)
    else report.skipped.push(`${typeLabel(t)}: ${why}`)
  }
  const { samples, stale } = await findSamples(admin, tested, all)
  report.stale = stale
  const withSamples = tested.filter((t) => {
    if ((samples.get(t)?.length ?? 0) > 0) return true
    report.missing.push(typeLabel(t))
    return false
  })

  // The table of every type, one scalar and one array column each; a table per type as primary key.
  const used = new Set<string>()
  const columns = withSamples.map((t) => ({
    t,
    scalar: columnName('t', t, used),
    // An array of a domain over an array is a multi-dimensional array: pipeflush writes 1-D arrays.
    array: t.hasArray && !t.overArray ? columnName('a', t, used) : undefined,
  }))
  const ddl = columns.flatMap(({ t, scalar, array }) => [
    `${quote(scalar)} ${t.ddl}`,
    ...(array === undefined ? [] : [`${quote(array)} ${t.ddl}[]`]),
  ])
  await admin.unsafe(`create table ${TABLE} (id int4 primary key, ${ddl.join(', ')})`)
  const probes = await admin.unsafe<{ pk: string | null; eq: string | null; array_eq: string | null }[]>(
    `select pg_temp.pf_state(format('create table %I (k %s primary key, v int4 not null)', 'pk_' || x.i, x.ddl)) as pk,
       pg_temp.pf_state(format('select null::%s = null::%s', x.ddl, x.ddl)) as eq,
       pg_temp.pf_state(format('select ''{}''::%s[] = ''{}''::%s[]', x.ddl, x.ddl)) as array_eq
     from unnest($1::text[]) with ordinality as x(ddl, i) order by x.i`,
    [withSamples.map((t) => t.ddl)],
  )
  const schema = await readSchema(admin)
  const table = schema.tables.get(TABLE)!
  const built: Case[] = []
  for (const [i, { t, scalar, array }] of columns.entries()) {
    const model = table.columnsByName.get(scalar)!
    const values = samples.get(t)!.map(({ literal, output }) => {
      const read = decodeValue(output, model)
      return { write: model.type === 'other' ? literal : read, read }
    })
    const probe = probes[i]!
    if (probe.pk !== null && !/no default operator class|could not identify/.test(probe.pk))
      throw new Error(`${typeLabel(t)}: creating a table with it as primary key failed: ${probe.pk}`)
    if (probe.pk !== null) report.noPrimaryKey.push(typeLabel(t))
    built.push({
      type: t,
      label: typeLabel(t),
      scalar,
      array,
      values,
      bad: await badValue(t, model),
      pkTable: probe.pk === null ? `pk_${i + 1}` : undefined,
      equality: findable(t, all, probe.eq === null),
      arrayEquality: probe.array_eq === null,
      listFind: !model.isArray && model.type !== 'jsonb',
    })
  }
  cases = built
  console.log(
    `[every-type] ${cases.length} types tested (${cases.filter((c) => c.pkTable).length} as primary key, ` +
      `${cases.filter((c) => c.array).length} as array elements); extensions created: ${report.extensions.join(', ')}; ` +
      `not creatable here: ${report.extensionFailures.map((f) => f.split(' ')[0]).join(', ') || 'none'}; ` +
      `skipped: ${report.skipped.length} (${report.skipped.filter((s) => !s.includes('pseudo-type')).join('; ')}; and pseudo-types)`,
  )
})

/**
 * Whether pipeflush finds rows by a value of `t`: by `~=` for the geometric types whose `=` compares
 * areas or does not exist, never for path (its `=` compares numbers of points), else where `=` exists.
 */
function findable(t: CatalogType, all: readonly CatalogType[], hasEquals: boolean): boolean {
  const base = t.typtype === 'd' ? all.find((b) => b.oid === t.baseOid) : t
  if (base?.schema === 'pg_catalog' && ['point', 'box', 'circle', 'polygon'].includes(base.name)) return true
  if (base?.schema === 'pg_catalog' && base.name === 'path') return false
  return hasEquals
}

/** The bad value of a type and the error it must give. */
async function badValue(t: CatalogType, model: ColumnModel): Promise<Case['bad']> {
  if (model.type !== 'other') {
    const value = BAD_JS[model.type]
    return { value: model.isArray ? [value] : value, code: 'INVALID_VALUE' }
  }
  const base = model.castType?.replace(/^.*\./, '').replace(/"/g, '') ?? ''
  if (ACCEPTS_ANY_TEXT[t.name] !== undefined || ACCEPTS_ANY_TEXT[base] !== undefined)
    return { value: 'a\u0000', code: 'INVALID_VALUE' }
  const bad = await findBadText(admin, t, BAD_TEXTS)
  if (bad === undefined) {
    report.noBadText.push(typeLabel(t))
    return { value: 'a\u0000', code: 'INVALID_VALUE' }
  }
  return { value: bad.text, code: 'STATEMENT_FAILED', sqlState: bad.sqlState }
}

const v = (c: Case, k: 0 | 1): Value => c.values[k] ?? c.values[0]!
type Pick = (c: Case) => { scalar: Value | null; array: (Value | null)[] | null }

/** The write and read forms of a row whose columns `pick` chooses. */
function row(pick: Pick): { write: Record<string, unknown>; read: Record<string, unknown> } {
  const write: Record<string, unknown> = {}
  const read: Record<string, unknown> = {}
  for (const c of cases) {
    const { scalar, array } = pick(c)
    write[c.scalar] = scalar === null ? null : scalar.write
    read[c.scalar] = scalar === null ? null : scalar.read
    if (c.array !== undefined) {
      write[c.array] = array === null ? null : array.map((e) => (e === null ? null : e.write))
      read[c.array] = array === null ? null : array.map((e) => (e === null ? null : e.read))
    }
  }
  return { write, read }
}

const ROWS = {
  a: (c: Case) => ({ scalar: v(c, 0), array: [v(c, 0), null, v(c, 1)] }),
  b: () => ({ scalar: null, array: null }),
  c: (c: Case) => ({ scalar: v(c, 1), array: [] }),
  aUpdated: (c: Case) => ({ scalar: v(c, 1), array: [v(c, 1)] }),
  bUpdated: (c: Case) => ({ scalar: v(c, 0), array: [null] }),
  cUpdated: () => ({ scalar: null, array: null }),
  bUpserted: (c: Case) => ({ scalar: v(c, 1), array: [v(c, 0), v(c, 1)] }),
  dUpserted: (c: Case) => ({ scalar: v(c, 0), array: [null, v(c, 0)] }),
} satisfies Record<string, Pick>

/** The values of every type column of `entity`, by column. */
function valuesOf(entity: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const c of cases) {
    out[c.scalar] = entity[c.scalar]
    if (c.array !== undefined) out[c.array] = entity[c.array]
  }
  return out
}

/** Rows `expected` (by id) read back in a fresh unit of work, compared type by type. */
async function expectRows(root: EntityManager, expected: Record<number, Record<string, unknown>>) {
  const ids = Object.keys(expected).map(Number)
  const rows = await root.fork().find(TABLE, { id: ids })
  expect(rows.map((r) => r['id'])).toEqual(ids)
  for (const entity of rows) {
    const want = expected[entity['id'] as number]!
    const got = valuesOf(entity)
    // Compared per type so that a failure names the type.
    for (const c of cases) {
      expect(got[c.scalar], `${c.label} (row ${entity['id']})`).toStrictEqual(want[c.scalar])
      if (c.array !== undefined)
        expect(got[c.array], `${c.label}[] (row ${entity['id']})`).toStrictEqual(want[c.array])
    }
  }
}

async function countRows(table: string, where: string, params: unknown[]): Promise<number> {
  const [r] = await admin.unsafe<{ n: number }[]>(
    `select count(*)::int4 as n from ${quote(table)} where ${where}`,
    params as never[],
  )
  return r?.n ?? -1
}

/** Insert, read, update, upsert, NULLs, arrays and finds on the table of every type, rows `base + 1..4`. */
async function writeAndRead(client: TypeTestClient, base: number) {
  const { root } = client
  const [a, b, c, d] = [base + 1, base + 2, base + 3, base + 4]
  const em = root.fork()
  em.create(TABLE, { id: a, ...row(ROWS.a).write })
  em.create(TABLE, { id: b, ...row(ROWS.b).write })
  em.create(TABLE, { id: c, ...row(ROWS.c).write })
  const inserted = await em.flush()
  expect(inserted.inserted).toBe(3)
  await expectRows(root, {
    [a]: row(ROWS.a).read,
    [b]: row(ROWS.b).read,
    [c]: row(ROWS.c).read,
  })

  // Reassigning what was read is no change: reads compare equal to themselves.
  const same = root.fork()
  for (const entity of await same.find(TABLE, { id: [a, b, c] })) {
    for (const [k, value] of Object.entries(valuesOf(entity))) entity[k] = value
  }
  expect((await same.flush()).statements).toBe(0)

  const edit = root.fork()
  const [ea, eb, ec] = await edit.find(TABLE, { id: [a, b, c] })
  Object.assign(ea!, row(ROWS.aUpdated).write)
  Object.assign(eb!, row(ROWS.bUpdated).write)
  Object.assign(ec!, row(ROWS.cUpdated).write)
  const updated = await edit.flush()
  expect(updated.updated).toBe(3)
  await expectRows(root, {
    [a]: row(ROWS.aUpdated).read,
    [b]: row(ROWS.bUpdated).read,
    [c]: row(ROWS.cUpdated).read,
  })

  const up = root.fork()
  up.upsert(TABLE, { id: b, ...row(ROWS.bUpserted).write }, { conflict: ['id'] })
  up.upsert(TABLE, { id: d, ...row(ROWS.dUpserted).write }, { conflict: ['id'] })
  const upserted = await up.flush()
  expect(upserted.upserted).toBe(2)
  await expectRows(root, {
    [a]: row(ROWS.aUpdated).read,
    [b]: row(ROWS.bUpserted).read,
    [c]: row(ROWS.cUpdated).read,
    [d]: row(ROWS.dUpserted).read,
  })

  // One row at a time: a statement of one row takes its texts as text parameters, not unnested arrays.
  const e = base + 5
  const single = root.fork()
  const created = single.create(TABLE, { id: e, ...row(ROWS.a).write })
  expect((await single.flush()).inserted).toBe(1)
  await expectRows(root, { [e]: row(ROWS.a).read })
  Object.assign(created, row(ROWS.bUpdated).write)
  expect((await single.flush()).updated).toBe(1)
  await expectRows(root, { [e]: row(ROWS.bUpdated).read })
  const upOne = root.fork()
  upOne.upsert(TABLE, { id: e, ...row(ROWS.dUpserted).write }, { conflict: ['id'] })
  expect((await upOne.flush()).upserted).toBe(1)
  await expectRows(root, { [e]: row(ROWS.dUpserted).read })

  // Found by value, one value and a list: a has v1, b v1, c NULL, d v0.
  const ids = [a, b, c, d]
  const finder = root.fork()
  await Promise.all(
    cases
      .filter((k) => k.equality)
      .map(async (k) => {
        // d holds v0 and [NULL, v0]: found by both at once, where arrays of the type have `=`.
        const byArray = k.array !== undefined && k.arrayEquality
        const one = await finder.find(TABLE, {
          [k.scalar]: v(k, 0).write,
          ...(byArray ? { [k.array!]: [null, v(k, 0).write] } : {}),
          id: ids,
        })
        expect(
          one.map((e) => e['id']),
          `find by ${k.label}${byArray ? ` and ${k.label}[]` : ''}`,
        ).toContain(d)
        if (k.listFind) {
          const list = await finder.find(TABLE, { [k.scalar]: [v(k, 0).write, v(k, 1).write], id: ids })
          expect(
            list.map((e) => e['id']),
            `find by a list of ${k.label}`,
          ).toEqual(expect.arrayContaining([a, b, d]))
        }
      }),
  )
  // `is null` involves no cast: one type is enough (for a composite type it is also true of a value
  // whose fields are all NULL).
  const plain = cases.find((k) => k.type.typtype !== 'c')!
  expect((await finder.find(TABLE, { [plain.scalar]: null, id: ids })).map((e) => e['id'])).toEqual([c])
}

/** Every type that can be a primary key, as one: insert, find by key, update, upsert, delete. */
async function asPrimaryKeys(client: TypeTestClient) {
  const keyed = cases.filter((c) => c.pkTable !== undefined)
  const { root } = client
  const em = root.fork()
  for (const c of keyed) em.create(c.pkTable!, { k: v(c, 0).write, v: 1 })
  expect((await em.flush()).inserted).toBe(keyed.length)

  const edit = root.fork()
  const entities = []
  for (const c of keyed) {
    const [entity] = await edit.find(c.pkTable!, { k: v(c, 0).write })
    expect(entity?.['k'], c.label).toStrictEqual(v(c, 0).read)
    entity!['v'] = 2
    entities.push(entity!)
  }
  expect((await edit.flush()).updated).toBe(keyed.length)

  const up = root.fork()
  for (const c of keyed) up.upsert(c.pkTable!, { k: v(c, 0).write, v: 3 }, { conflict: ['k'] })
  expect((await up.flush()).upserted).toBe(keyed.length)
  const sum = (
    await admin.unsafe<{ n: number }[]>(
      `select (${keyed.map((c) => `(select coalesce(sum(v), 0) from ${quote(c.pkTable!)})`).join(' + ')})::int4 as n`,
    )
  )[0]?.n
  expect(sum).toBe(3 * keyed.length)

  for (const entity of entities) edit.remove(entity)
  expect((await edit.flush()).deleted).toBe(keyed.length)
  await expectNoKeyedRows(keyed)

  // Two rows per table, where the type has two values its key tells apart: statements of several rows
  // match their keys as unnested text[] elements.
  const first = root.fork()
  for (const c of keyed) first.create(c.pkTable!, { k: v(c, 0).write, v: 1 })
  await first.flush()
  const pairs: Case[] = []
  for (const c of keyed) {
    if (c.values.length < 2) continue
    const same = await root.fork().find(c.pkTable!, byKey(c, v(c, 1).write))
    if (same.length === 0) pairs.push(c)
  }
  expect(pairs.length).toBeGreaterThan(keyed.length / 2)
  const second = root.fork()
  for (const c of pairs) second.create(c.pkTable!, { k: v(c, 1).write, v: 1 })
  expect((await second.flush()).inserted).toBe(pairs.length)
  const both = root.fork()
  const pairRows = []
  for (const c of pairs) {
    for (const k of [0, 1] as const) {
      const [entity] = await both.find(c.pkTable!, byKey(c, v(c, k).write))
      expect(entity?.['k'], `${c.label} (${k})`).toStrictEqual(v(c, k).read)
      entity!['v'] = 2
      pairRows.push(entity!)
    }
  }
  const twoUpdated = await both.flush()
  expect([twoUpdated.updated, twoUpdated.statements]).toEqual([2 * pairs.length, pairs.length])
  const upTwo = root.fork()
  for (const c of pairs)
    for (const k of [0, 1] as const) upTwo.upsert(c.pkTable!, { k: v(c, k).write, v: 3 }, { conflict: ['k'] })
  expect((await upTwo.flush()).upserted).toBe(2 * pairs.length)
  for (const entity of pairRows) both.remove(entity)
  const twoDeleted = await both.flush()
  expect([twoDeleted.deleted, twoDeleted.statements]).toEqual([2 * pairs.length, pairs.length])
  const rest = root.fork()
  for (const c of keyed.filter((k) => !pairs.includes(k))) {
    const [entity] = await rest.find(c.pkTable!, byKey(c, v(c, 0).write))
    rest.remove(entity!)
  }
  await rest.flush()
  await expectNoKeyedRows(keyed)
}

/** A find by primary key `value` (a list of one where a JS array would mean a list of values). */
function byKey(c: Case, value: unknown): Record<string, unknown> {
  return { k: c.listFind ? [value] : value }
}

/** No row is left in the primary key tables of `keyed`. */
async function expectNoKeyedRows(keyed: readonly Case[]) {
  const [left] = await admin.unsafe<{ n: number }[]>(
    `select (${keyed.map((c) => `(select count(*) from ${quote(c.pkTable!)})`).join(' + ')})::int4 as n`,
  )
  expect(left?.n).toBe(0)
}

/** Bad text of every type: the flush fails with the type's code, commits nothing, and succeeds once fixed. */
async function badText(client: TypeTestClient, base: number) {
  for (const [i, c] of cases.entries()) {
    const id = base + 100 + i
    const em = client.root.fork()
    const entity = em.create(TABLE, { id, [c.scalar]: c.bad.value })
    const error = await em.flush().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isPipeflushError(error), `${c.label}: ${String(error)}`).toBe(true)
    expect({ type: c.label, code: (error as { code?: unknown }).code }).toEqual({
      type: c.label,
      code: c.bad.code,
    })
    if (c.bad.sqlState !== undefined)
      expect((error as { sqlState?: unknown }).sqlState, c.label).toBe(c.bad.sqlState)
    // The same unit of work, fixed, inserts the row: had the failed flush committed it, this would be a duplicate key.
    entity[c.scalar] = v(c, 0).write
    expect((await em.flush()).inserted, c.label).toBe(1)
  }
  expect(await countRows(TABLE, 'id between $1 and $2', [base + 100, base + 99 + cases.length])).toBe(
    cases.length,
  )
}

describe('every type of the catalog', () => {
  test('has samples (or a documented reason to be skipped) and bad text', () => {
    expect(report.stale, 'samples the server rejects: fix them in samples.ts').toEqual([])
    expect(report.missing, 'types with no valid sample: add samples in samples.ts').toEqual([])
    expect(report.noBadText, 'types with no rejected text: add to BAD_TEXTS or ACCEPTS_ANY_TEXT').toEqual([])
    expect(cases.length).toBeGreaterThan(100)
  })

  describe.each(TEST_DRIVERS.map((driver, i) => [driver, 10_000 * (i + 1)] as const))(
    '%s',
    (driver, offset) => {
      const open = (pipeline: PipelineMode) => openClient(db, { pipeline, driver: driver as DriverName })

      test.each<[PipelineMode, number]>([
        ['off', 1000],
        ['waves', 2000],
      ])(
        '%s: every type as a column, an array element and a primary key; bad text rejected',
        async (pipeline, base) => {
          const client = await open(pipeline)
          await writeAndRead(client, offset + base)
          await asPrimaryKeys(client)
          await badText(client, offset + base)
        },
      )

      // A fresh client, then the same client again: its statements already sent (pg: prepared) once.
      let burst: TypeTestClient | undefined
      test('burst, cold: a fresh client', async () => {
        burst = await open('burst')
        await writeAndRead(burst, offset + 3000)
        await asPrimaryKeys(burst)
        await badText(burst, offset + 3000)
      })
      test('burst, warm: the same client, the same statements again', async () => {
        if (burst === undefined) {
          burst = await open('burst')
          await writeAndRead(burst, offset + 3500)
        }
        await burst.idle()
        await writeAndRead(burst, offset + 4000)
        await asPrimaryKeys(burst)
        await badText(burst, offset + 4000)
      })
      // Every insert that can go as COPY does (one row is enough with copyRows 1): the values in
      // COPY's text format, read back the same; bad text rejected by the server the same way.
      test('burst, every insert as COPY', async () => {
        const client = await openClient(db, { pipeline: 'burst', driver: driver as DriverName, copyRows: 1 })
        const probe = client.root.fork()
        probe.create(TABLE, { id: 1, ...row(ROWS.a).write })
        expect(
          probe
            .plan()
            .waves.flat()
            .map((s) => [s.kind, s.copy]),
        ).toEqual([['insert', true]])
        await writeAndRead(client, offset + 5000)
        await asPrimaryKeys(client)
        await badText(client, offset + 5000)
      })
    },
  )
})
