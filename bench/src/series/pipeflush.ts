// The file of the series that knows pipeflush's API (with `realistic/pipeflush-unit.ts` for the mixed
// workload): when the API changes, these change.
import type { EntityManager, FlushReport, PipelineMode } from '@pipeflush/core'
import { nextValues, type Work } from '../workload.ts'
import { type DriverClient, openDriver } from './driver-client.ts'
import { readsOnly } from './shop-cells.ts'
import { pipeflushShop } from './shop-pipeflush.ts'
import { recordingTracer, tracingUnavailable } from './tracing.ts'
import { ALL_SCENARIOS, DRIVERS, type DriverName, type Series, type SeriesClient, seriesId } from './types.ts'

type Core = typeof import('@pipeflush/core')

let core: Promise<Core> | undefined

/** Imports `@pipeflush/core` once; rejects with a one-line reason when it is not there or broken. */
export function loadCore(): Promise<Core> {
  core ??= import('@pipeflush/core').then((m: Partial<Core>) => {
    if (typeof m.EntityManager?.connect !== 'function')
      throw new Error('@pipeflush/core does not export EntityManager.connect yet')
    return m as Core
  })
  return core
}

/** Why pipeflush cannot run here, or undefined. */
export async function pipeflushUnavailable(): Promise<string | undefined> {
  try {
    await loadCore()
    return undefined
  } catch (e) {
    const message = e instanceof Error ? e.message.split('\n')[0] : String(e)
    return `cannot run: @pipeflush/core not available (${message})`
  }
}

/** Root entity managers per client and mode (and `tracing: false`): the schema is read once, each flush forks. */
const roots = new WeakMap<object, Map<string, Promise<EntityManager>>>()

/**
 * The root entity manager of `client` (a postgres.js `sql` or a `pg.Pool`) in `mode`, connected once
 * (the schema read from pg_catalog, with the library's default options otherwise; `tracing: false`
 * when `tracing` is false).
 *
 * @example
 * const em = (await rootFor(sql, 'burst')).fork()
 */
export function rootFor(client: object, mode: PipelineMode, tracing?: false): Promise<EntityManager> {
  let byMode = roots.get(client)
  if (!byMode) {
    byMode = new Map()
    roots.set(client, byMode)
  }
  const key = tracing === false ? `${mode}, tracing: false` : mode
  let root = byMode.get(key)
  if (!root) {
    root = loadCore().then(({ EntityManager }) =>
      EntityManager.connect(client, tracing === false ? { pipeline: mode, tracing } : { pipeline: mode }),
    )
    byMode.set(key, root)
  }
  return root
}

/**
 * One unit of work through pipeflush: a fresh entity manager (a fork of the client's root) creates
 * `rowsPerTable` rows in each of `tables` (ids assigned by pipeflush) and flushes them in `mode`
 * (on the root connected with `tracing: false` when `tracing` is false).
 *
 * @example
 * const report = await pipeflushFlush(sql, 'burst', ['t1', 't2'], 1) // report.roundTrips === 1 once warm
 * await pipeflushFlush(sql, 'burst', ['t1'], 1, false) // on a root connected with `tracing: false`
 */
export async function pipeflushFlush(
  client: object,
  mode: PipelineMode,
  tables: readonly string[],
  rowsPerTable: number,
  tracing?: false,
): Promise<FlushReport> {
  const em = (await rootFor(client, mode, tracing)).fork()
  for (const table of tables) for (const v of nextValues(rowsPerTable)) em.create(table, { v })
  return em.flush()
}

/** A table's insert texts: for one row (`text` parameters) and for several (`text[]` parameters). */
export interface InsertTexts {
  readonly one: string
  readonly many: string
}

const texts = new Map<string, InsertTexts>()

/**
 * The SQL texts pipeflush sends for new rows `(id, v)` of each of `tables`, for one row and for
 * several (read from `em.plan()`, once per table and process, on a client of its own): what the
 * same-statement series send.
 *
 * @example
 * await insertTexts(url, ['t1'])
 * // Map { 't1' => { one: 'insert into "public"."t1" ("id", "v") values ($1::text::int8, $2::text::text)',
 * //                 many: 'insert into "public"."t1" ("id", "v") select ... unnest($1::text[], $2::text[]) ...' } }
 */
export async function insertTexts(url: string, tables: readonly string[]): Promise<Map<string, InsertTexts>> {
  const missing = tables.filter((t) => !texts.has(t))
  if (missing.length > 0) {
    const probe = await openDriver('postgres.js', url, 1)
    try {
      const root = await rootFor(probe.client, 'burst')
      const planned = (rows: number) => {
        const em = root.fork()
        for (const table of missing) for (let i = 0; i < rows; i++) em.create(table, { v: 'x' })
        return new Map(
          em
            .plan()
            .waves.flat()
            .map((s) => [s.table, s.sql]),
        )
      }
      const one = planned(1)
      const many = planned(2)
      for (const [table, sql] of one) texts.set(table, { one: sql, many: many.get(table) ?? '' })
    } finally {
      await probe.close()
    }
  }
  return new Map(
    tables.map((t) => {
      const text = texts.get(t) ?? texts.get(`public.${t}`)
      if (text === undefined) throw new Error(`pipeflush planned no insert for ${t}`)
      return [t, text]
    }),
  )
}

function pipeflushSeries(mode: PipelineMode, driver: DriverName, description: string): Series {
  const name = `pipeflush-${mode}` as const
  return {
    name,
    driver,
    id: seriesId(name, driver),
    description: `${description} (${driver === 'pg' ? 'pg.Pool, pipeline: true' : 'postgres.js'})`,
    scenarios: mode === 'burst' ? [...ALL_SCENARIOS, 'cpu'] : ALL_SCENARIOS,
    unavailableReason: pipeflushUnavailable,
    async open(target, { pool }): Promise<SeriesClient> {
      const c: DriverClient = await openDriver(driver, target.url, pool)
      await rootFor(c.client, mode) // reads the schema now, not during the first flush
      let last: FlushReport | undefined
      // The shop cells (CPU scenario, burst only): each unit loaded and changed untimed, then flushed.
      const shop = mode === 'burst' ? pipeflushShop(c) : undefined
      let prepared: EntityManager | undefined
      return {
        counter: c.counter,
        async flush(work) {
          if (work.shop) {
            const em = prepared
            prepared = undefined
            if (!em || !shop) throw new Error(`${seriesId(name, driver)}: shop cell flushed without prepare`)
            if (readsOnly(work.shop)) {
              // A read batch: no flush, no report.
              last = undefined
              await shop.read(em)
              return
            }
            last = await em.flush()
            return
          }
          last = await pipeflushFlush(c.client, mode, work.tables, work.rowsPerTable)
        },
        ...(shop
          ? {
              async prepare(work: Work) {
                prepared = await shop.prepare(work)
              },
              planPrepared() {
                prepared?.plan()
              },
            }
          : {}),
        lastReport: () => last,
        query: c.query,
        close: c.close,
      }
    },
  }
}

const DESCRIPTIONS: Readonly<Record<PipelineMode, string>> = {
  off: 'pipeflush em.flush(), pipeline off: BEGIN, every statement awaited, COMMIT',
  waves: 'pipeflush em.flush(), pipeline waves: BEGIN, each FK wave together, COMMIT',
  burst: 'pipeflush em.flush(), pipeline burst: the whole transaction in one round trip',
}

/** `em.flush()` in each pipeline mode of pipeflush, on each driver. */
export const pipeflushSeries3: readonly Series[] = DRIVERS.flatMap((driver) =>
  (['off', 'waves', 'burst'] as const).map((mode) => pipeflushSeries(mode, driver, DESCRIPTIONS[mode])),
)

/**
 * pipeflush-burst with an OpenTelemetry tracer provider recording every span (set globally for the
 * series' turn: `beginTurn` / `endTurn`), on each driver, connected as users connect
 * (`EntityManager.connect(client, { pipeline: 'burst' })`, flushed with `em.flush()`): with its default
 * tracing (`pipeflush-burst-traced`), and with `tracing: false` (`pipeflush-burst-tracing-false`).
 * CPU cells only; beside pipeflush-burst (no provider) they give what tracing costs per flush.
 */
function tracedSeries(driver: DriverName, tracing: 'recording' | 'off'): Series {
  const name = tracing === 'recording' ? 'pipeflush-burst-traced' : 'pipeflush-burst-tracing-false'
  const off = tracing === 'off' ? false : undefined
  return {
    name,
    driver,
    id: seriesId(name, driver),
    description: `${DESCRIPTIONS.burst}, a recording OpenTelemetry tracer provider set globally${off === false ? ', tracing: false' : ''} (${driver === 'pg' ? 'pg.Pool, pipeline: true' : 'postgres.js'})`,
    scenarios: ['cpu'],
    async unavailableReason() {
      return (await pipeflushUnavailable()) ?? (await tracingUnavailable())
    },
    async open(target, { pool }): Promise<SeriesClient> {
      const tracer = await recordingTracer()
      const c: DriverClient = await openDriver(driver, target.url, pool)
      await rootFor(c.client, 'burst', off)
      let last: FlushReport | undefined
      return {
        counter: c.counter,
        async flush(work) {
          last = await pipeflushFlush(c.client, 'burst', work.tables, work.rowsPerTable, off)
        },
        lastReport: () => last,
        beginTurn: () => tracer.install(),
        endTurn: () => tracer.uninstall(),
        query: c.query,
        close: c.close,
      }
    },
  }
}

/** pipeflush-burst-traced and pipeflush-burst-tracing-false on each driver. */
export const tracedSeries4: readonly Series[] = DRIVERS.flatMap((driver) => [
  tracedSeries(driver, 'recording'),
  tracedSeries(driver, 'off'),
])
