// With series/pipeflush.ts and realistic/pipeflush-unit.ts, a file that knows pipeflush's API (find,
// create, assign, remove, plan): the shop cells of the CPU scenario, as pipeflush flushes them and as
// the raw drivers send the statements pipeflush plans for them.
import type { EntityManager } from '@pipeflush/core'
import pg from 'pg'
import { isRef, type Unit } from '../realistic/unit.ts'
import type { Work } from '../workload.ts'
import { type DriverClient, openDriver } from './driver-client.ts'
import { type CellUnit, cellUnit, LOAD_WITH, readsOnly, type ShopCell, ShopFixtures } from './shop-cells.ts'
import type { DriverName } from './types.ts'

type Entity = Record<string, unknown>

/** Roots connected for the shop cells, per client: burst, `version` columns checked (`product`'s). */
const roots = new WeakMap<object, Promise<EntityManager>>()

/**
 * The root entity manager of the shop cells on `client`: `EntityManager.connect(client, { pipeline:
 * 'burst', versionColumn: 'version' })`, connected once.
 */
export function shopRoot(client: object): Promise<EntityManager> {
  let root = roots.get(client)
  if (!root) {
    // Imported here, not through pipeflush.ts's loadCore (which imports this file): the series check it first.
    root = import('@pipeflush/core').then(({ EntityManager }) =>
      EntityManager.connect(client, { pipeline: 'burst', versionColumn: 'version' }),
    )
    roots.set(client, root)
  }
  return root
}

/**
 * `unit` in a fresh fork of `root`, as a user writes it: rows loaded with `em.find` (together), new
 * rows with `em.create` (a new parent given as its entity, so pipeflush resolves the key), loaded
 * rows changed by assignment and removed with `em.remove`. Nothing is flushed.
 */
export async function unitInFork(root: EntityManager, unit: Unit): Promise<EntityManager> {
  const em = root.fork()
  const loaded = new Map<string, Entity>()
  const results = await Promise.all(unit.reads.map((r) => em.find(r.table, { [r.column]: r.ids })))
  unit.reads.forEach((read, k) => {
    for (const row of results[k] ?? []) loaded.set(`${read.table}:${String(row['id'])}`, row)
  })
  const created: Entity[] = []
  for (const row of unit.inserts) {
    const values: Entity = {}
    for (const [column, v] of Object.entries(row.values)) values[column] = isRef(v) ? created[v.ref] : v
    created.push(em.create(row.table, values))
  }
  const own = (table: string, id: number) => {
    const entity = loaded.get(`${table}:${id}`)
    if (!entity) throw new Error(`shop cell: ${table} ${id} was not loaded`)
    return entity
  }
  for (const u of unit.updates) Object.assign(own(u.table, u.id), u.set)
  for (const d of unit.deletes) em.remove(own(d.table, d.id))
  return em
}

/** The units of one client, numbered, on its own fixtures (seeded on first use). */
export class Units {
  readonly fixtures = new ShopFixtures()
  #seeded: Promise<void> | undefined
  #next = 0
  readonly query: (text: string) => Promise<unknown>

  constructor(query: (text: string) => Promise<unknown>) {
    this.query = query
  }

  /** The next unit of `cell`, its setup rows inserted. */
  async next(cell: ShopCell): Promise<CellUnit> {
    this.#seeded ??= this.query(this.fixtures.sql()).then(() => undefined)
    await this.#seeded
    const unit = cellUnit(cell, this.fixtures, this.#next++)
    if (unit.setup) await this.query(unit.setup)
    return unit
  }
}

/** pipeflush's side of a shop cell on one client: the next unit loaded and changed in a fork, not flushed. */
export interface PipeflushShop {
  /** The next unit in a fresh fork; for a read cell (`load`), the fork alone, nothing read yet. */
  prepare(work: Work): Promise<EntityManager>
  /** What a read cell does on the fork `prepare` gave: the `load` cell's graph load. */
  read(em: EntityManager): Promise<unknown>
}

/**
 * The shop cells through pipeflush on `c` (its setup rows inserted and its reads sent on `c` too).
 *
 * @example
 * const em = await pipeflushShop(c).prepare(shopWork('graph'))
 * await em.flush()
 */
export function pipeflushShop(c: DriverClient): PipeflushShop {
  const units = new Units(c.query)
  return {
    async prepare(work) {
      if (!work.shop) throw new Error('not a shop cell')
      const root = await shopRoot(c.client)
      const unit = await units.next(work.shop)
      return readsOnly(work.shop) ? root.fork() : unitInFork(root, unit)
    },
    read: (em) => loadCell(em, units.fixtures),
  }
}

/** The `load` cell's read on `em`: the customer of the fixtures' first unit, with `LOAD_WITH`. */
function loadCell(em: EntityManager, fixtures: ShopFixtures): Promise<unknown> {
  return em.load('customer', fixtures.customer(0), { with: LOAD_WITH })
}

/** A statement as a raw driver sends it: pipeflush's text, its parameters as pipeflush passes them. */
export interface RawStatement {
  readonly sql: string
  /** `text` parameters for a one-row statement, `text[]` literals for several rows. */
  readonly params: readonly (string | null)[]
}

/** A `text[]` literal with every element double-quoted (`NULL` for null). */
function textArray(elements: readonly (string | null)[]): string {
  return `{${elements.map((e) => (e === null ? 'NULL' : `"${e.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`
}

/** A placeholder id of a plan (`-1`, `-2`...: a new row's id not assigned yet). */
const PLACEHOLDER = /^-[1-9][0-9]*$/

/** The raw drivers' side of a shop cell: the statements pipeflush plans for the next unit, ids from the sequences. */
export interface RawShop {
  prepare(work: Work): Promise<RawStatement[]>
  close(): Promise<void>
}

/**
 * The shop cells as statements for a raw driver: each unit is made in a fork of pipeflush on a
 * connection of its own (not the raw series' one), exactly as {@link pipeflushShop} makes it; its
 * `em.plan()` gives the statements, whose placeholder ids are then replaced by ids taken from the
 * tables' sequences (one `nextval` query). Setup rows, reads and `nextval` go on that connection.
 */
export function rawShop(driver: DriverName, url: string): RawShop {
  let planner: Promise<DriverClient> | undefined
  let units: Units | undefined
  let reads: Promise<RawStatement[]> | undefined
  return {
    async prepare(work) {
      if (!work.shop) throw new Error('not a shop cell')
      planner ??= openDriver(driver, url, 1)
      const c = await planner
      units ??= new Units(c.query)
      const unit = await units.next(work.shop)
      if (readsOnly(work.shop)) {
        // The same load every time: its statements captured once.
        const fixtures = units.fixtures
        reads ??= capturedReads(url, (em) => loadCell(em, fixtures))
        return reads
      }
      const em = await unitInFork(await shopRoot(c.client), unit)
      const statements = em.plan().waves.flat()
      // Placeholders stand in the key column of the inserts: each one's table, in order of appearance.
      const tableOf = new Map<string, string>()
      for (const s of statements) {
        if (s.kind !== 'insert') continue
        const k = s.columns.indexOf('id')
        for (const v of s.params[k] ?? []) if (v !== null && PLACEHOLDER.test(v)) tableOf.set(v, s.table)
      }
      const ids = new Map<string, string>()
      if (tableOf.size > 0) {
        // In placeholder order (-1, -2...), as pipeflush hands out the ids of a block.
        const wanted = [...tableOf].sort(([a], [b]) => Number(b) - Number(a))
        const select = wanted
          .map(
            ([p, t], k) =>
              `select ${k} as k, '${p}' as p, nextval(pg_get_serial_sequence('${t}', 'id'))::text as id`,
          )
          .join(' union all ')
        for (const row of await c.query(select)) ids.set(String(row['p']), String(row['id']))
      }
      const real = (v: string | null) => (v !== null && PLACEHOLDER.test(v) ? (ids.get(v) ?? v) : v)
      return statements.map((s) => ({
        sql: s.sql,
        params: s.params.map((column) =>
          s.rowCount === 1 ? real(column[0] ?? null) : textArray(column.map(real)),
        ),
      }))
    },
    async close() {
      if (planner) await (await planner).close()
    },
  }
}

/**
 * The statements pipeflush sends for `read` (on a fork of a root of its own, on node-postgres: every
 * statement of a read batch, its BEGIN and COMMIT included, goes through `Client.query`, where they
 * are taken as sent, parameters as texts). On postgres.js pipeflush sends the same texts, its
 * parameters inlined, in one simple-protocol message.
 */
async function capturedReads(
  url: string,
  read: (em: EntityManager) => Promise<unknown>,
): Promise<RawStatement[]> {
  const c = await openDriver('pg', url, 1)
  const captured: RawStatement[] = []
  const query = pg.Client.prototype.query
  try {
    const root = await shopRoot(c.client)
    pg.Client.prototype.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
      const q = config as { text?: unknown; values?: unknown } | null
      if (typeof q === 'object' && q !== null && typeof q.text === 'string')
        captured.push({ sql: q.text, params: Array.isArray(q.values) ? (q.values as (string | null)[]) : [] })
      return (query as (...a: unknown[]) => unknown).call(this, config, ...rest)
    } as typeof query
    await read(root.fork())
  } finally {
    pg.Client.prototype.query = query
    await c.close()
  }
  if (captured.length === 0) throw new Error('shop load: no statement captured')
  return captured
}
