// The only file that knows pipeflush's API: when it changes, only this file changes.
import type { EntityManager, FlushReport, PipelineMode } from '@pipeflush/core'
import type postgres from 'postgres'
import { nextValues } from '../workload.ts'
import { openPostgresJs } from './postgres-js-client.ts'
import { ALL_SCENARIOS, type Series, type SeriesClient } from './types.ts'

type Core = typeof import('@pipeflush/core')

let core: Promise<Core> | undefined

/** Imports `@pipeflush/core` once; rejects with a one-line reason when it is not there or broken. */
function loadCore(): Promise<Core> {
  core ??= import('@pipeflush/core').then((m: Partial<Core>) => {
    if (typeof m.EntityManager?.connect !== 'function')
      throw new Error('@pipeflush/core does not export EntityManager.connect yet')
    return m as Core
  })
  return core
}

/** Root entity managers per client and mode: the schema is read once, each flush forks. */
const roots = new WeakMap<postgres.Sql, Map<PipelineMode, Promise<EntityManager>>>()

function rootFor(sql: postgres.Sql, mode: PipelineMode): Promise<EntityManager> {
  let byMode = roots.get(sql)
  if (!byMode) {
    byMode = new Map()
    roots.set(sql, byMode)
  }
  let root = byMode.get(mode)
  if (!root) {
    root = loadCore().then(({ EntityManager }) => EntityManager.connect(sql, { pipeline: mode }))
    byMode.set(mode, root)
  }
  return root
}

/**
 * One unit of work through pipeflush: a fresh entity manager (a fork of the client's root) creates
 * `rowsPerTable` rows in each of `tables` (ids assigned by pipeflush) and flushes them in `mode`.
 *
 * @example
 * const report = await pipeflushFlush(sql, 'burst', ['t1', 't2'], 1) // report.roundTrips === 1 once warm
 */
export async function pipeflushFlush(
  sql: postgres.Sql,
  mode: PipelineMode,
  tables: readonly string[],
  rowsPerTable: number,
): Promise<FlushReport> {
  const em = (await rootFor(sql, mode)).fork()
  for (const table of tables) for (const v of nextValues(rowsPerTable)) em.create(table, { v })
  return em.flush()
}

function pipeflushSeries(mode: PipelineMode, description: string): Series {
  return {
    name: `pipeflush-${mode}`,
    description,
    scenarios: ALL_SCENARIOS,
    async unavailableReason() {
      try {
        await loadCore()
        return undefined
      } catch (e) {
        const message = e instanceof Error ? e.message.split('\n')[0] : String(e)
        return `cannot run: @pipeflush/core not available (${message})`
      }
    },
    async open(target, { pool }): Promise<SeriesClient> {
      const { sql, counter } = await openPostgresJs(target.url, pool)
      await rootFor(sql, mode) // reads the schema now, not during the first flush
      let last: FlushReport | undefined
      return {
        counter,
        async flush(work) {
          last = await pipeflushFlush(sql, mode, work.tables, work.rowsPerTable)
        },
        lastReport: () => last,
        close: () => sql.end({ timeout: 5 }),
      }
    },
  }
}

/** `em.flush()` in each pipeline mode of pipeflush. */
export const pipeflushSeries3: readonly Series[] = [
  pipeflushSeries('off', 'pipeflush em.flush(), pipeline off: every statement awaited in sql.begin'),
  pipeflushSeries('waves', 'pipeflush em.flush(), pipeline waves: each FK wave in one Promise.all'),
  pipeflushSeries('burst', 'pipeflush em.flush(), pipeline burst: BEGIN, all statements, COMMIT at once'),
]
