import { allTables, nextValues, type Work } from '../workload.ts'
import { type DriverClient, openDriver } from './driver-client.ts'
import { type InsertTexts, insertTexts, pipeflushUnavailable } from './pipeflush.ts'
import { DRIVERS, type DriverName, type Series, type SeriesClient, seriesId } from './types.ts'

/** Ids the same-statement series give their rows: far above what the tables' sequences hand out. */
let nextId = 1_000_000_000_000

/** A `text[]` literal with every element double-quoted, as pipeflush writes its parameters. */
function textArray(elements: readonly string[]): string {
  return `{${elements.map((e) => `"${e.replace(/["\\]/g, '\\$&')}"`).join(',')}}`
}

/** The parameters of one table's insert: `[ids, values]` as `text[]` literals, or for one row its texts. */
function insertParams(rows: number): [string, string] {
  const ids = Array.from({ length: rows }, () => String(nextId++))
  const values = nextValues(rows)
  if (rows === 1) return [ids[0]!, values[0]!]
  return [textArray(ids), textArray(values)]
}

/** The insert text pipeflush sends for `rows` rows of a table. */
function insertText(texts: ReadonlyMap<string, InsertTexts>, table: string, rows: number): string {
  const text = texts.get(table)
  return (rows === 1 ? text?.one : text?.many) ?? ''
}

/** `$1`, `$2` of `text` replaced by the parameters as quoted literals (the bench's values need no escaping but quotes). */
function inline(text: string, params: readonly string[]): string {
  return text.replace(
    /\$(\d+)/g,
    (_, n: string) => `'${(params[Number(n) - 1] ?? '').replaceAll("'", "''")}'`,
  )
}

type Send = (c: DriverClient, texts: ReadonlyMap<string, InsertTexts>, work: Work) => Promise<void>

/** Throws unless the transaction committed. */
function checkCommit(command: string | undefined, what: string): void {
  if (command !== 'COMMIT') throw new Error(`${what}: COMMIT answered ${command}`)
}

/** BEGIN, the inserts and COMMIT pipelined on one connection, in one `Promise.all`. */
const pipelined: Send = async (c, texts, work) => {
  const statements = work.tables.map((t) => ({
    text: insertText(texts, t, work.rowsPerTable),
    params: insertParams(work.rowsPerTable),
  }))
  if (c.driver === 'postgres.js') {
    const r = await c.client.reserve()
    try {
      const results = await Promise.all([
        r.unsafe('begin'),
        ...statements.map((s) => r.unsafe(s.text, s.params, { prepare: true })),
        r.unsafe('commit'),
      ])
      checkCommit(results[results.length - 1]?.command, 'raw-pipeline')
    } finally {
      r.release()
    }
    return
  }
  const client = await c.client.connect()
  try {
    const results = await Promise.all([
      client.query('begin'),
      ...statements.map((s, i) =>
        client.query({
          name: `raw_${work.tables[i]}_${work.rowsPerTable === 1 ? 1 : 'n'}`,
          text: s.text,
          values: s.params,
        }),
      ),
      client.query('commit'),
    ])
    checkCommit(results[results.length - 1]?.command, 'raw-pipeline')
  } finally {
    client.release()
  }
}

/** Every insert in one simple-protocol Query message, no BEGIN: one implicit transaction. */
const simple: Send = async (c, texts, work) => {
  const text = work.tables
    .map((t) => inline(insertText(texts, t, work.rowsPerTable), insertParams(work.rowsPerTable)))
    .join(';\n')
  if (c.driver === 'postgres.js') {
    const r = await c.client.reserve()
    try {
      await r.unsafe(text)
    } finally {
      r.release()
    }
    return
  }
  const client = await c.client.connect()
  try {
    await client.query(text)
  } finally {
    client.release()
  }
}

function sameStatementSeries(kind: 'raw-pipeline' | 'raw-simple', driver: DriverName): Series {
  const how =
    kind === 'raw-simple'
      ? 'one simple-protocol message of the inserts (no BEGIN: one implicit transaction)'
      : driver === 'pg'
        ? 'pipeline: true, BEGIN + named inserts + COMMIT in one Promise.all'
        : 'reserve(), BEGIN + inserts with prepare: true + COMMIT in one Promise.all'
  return {
    name: kind,
    driver,
    id: seriesId(kind, driver),
    description: `${driver} sending pipeflush's statements itself: ${how}`,
    scenarios: ['cpu'],
    unavailableReason: pipeflushUnavailable,
    async open(target, { pool }): Promise<SeriesClient> {
      const texts = await insertTexts(target.url, allTables())
      const c = await openDriver(driver, target.url, pool)
      const send = kind === 'raw-simple' ? simple : pipelined
      return {
        counter: c.counter,
        flush: (work) => send(c, texts, work),
        query: c.query,
        close: c.close,
      }
    },
  }
}

/**
 * The raw driver sending the statements pipeflush sends (its inserts with ids, in the form pipeflush picks for the row count), without
 * pipeflush: the floor of pipeflush's client CPU per flush. For each driver, pipelined and as one
 * simple-protocol message.
 */
export const sameStatementSeries4: readonly Series[] = DRIVERS.flatMap((driver) => [
  sameStatementSeries('raw-pipeline', driver),
  sameStatementSeries('raw-simple', driver),
])
