import { allTables, nextValues, type Work } from '../workload.ts'
import { type DriverClient, openDriver } from './driver-client.ts'
import { type InsertTexts, insertTexts, pipeflushUnavailable } from './pipeflush.ts'
import { readsOnly } from './shop-cells.ts'
import { type RawStatement, rawShop } from './shop-pipeflush.ts'
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

/** Named statements of the shop cells on pg, by text. */
const pgNames = new Map<string, string>()

/** `text`'s parameters as SQL literals (`null` for null), as a simple-protocol message carries them. */
function inlineNullable(text: string, params: readonly (string | null)[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const p = params[Number(n) - 1]
    return p === null || p === undefined ? 'null' : `'${p.replaceAll("'", "''")}'`
  })
}

/** The shop cell's statements (planned by pipeflush) as raw-pipeline sends the inserts: BEGIN, them, COMMIT pipelined. */
async function pipelinedStatements(c: DriverClient, statements: readonly RawStatement[]): Promise<void> {
  if (c.driver === 'postgres.js') {
    const r = await c.client.reserve()
    try {
      const results = await Promise.all([
        r.unsafe('begin'),
        ...statements.map((s) => r.unsafe(s.sql, s.params as string[], { prepare: true })),
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
      ...statements.map((s) =>
        client.query({ name: pgStatementName(s.sql), text: s.sql, values: s.params as string[] }),
      ),
      client.query('commit'),
    ])
    checkCommit(results[results.length - 1]?.command, 'raw-pipeline')
  } finally {
    client.release()
  }
}

/** The name a shop statement is prepared under on pg (one per text, for the process). */
function pgStatementName(sql: string): string {
  let name = pgNames.get(sql)
  if (name === undefined) {
    name = `raw_shop_${pgNames.size + 1}`
    pgNames.set(sql, name)
  }
  return name
}

/**
 * A read cell's statements (its BEGIN and COMMIT among them, as pipeflush sent them) pipelined in one
 * `Promise.all`, those with parameters prepared (named on pg), the others unnamed.
 */
async function pipelinedReads(c: DriverClient, statements: readonly RawStatement[]): Promise<void> {
  if (c.driver === 'postgres.js') {
    const r = await c.client.reserve()
    try {
      await Promise.all(
        statements.map((s) =>
          s.params.length === 0 ? r.unsafe(s.sql) : r.unsafe(s.sql, s.params as string[], { prepare: true }),
        ),
      )
    } finally {
      r.release()
    }
    return
  }
  const client = await c.client.connect()
  try {
    await Promise.all(
      statements.map((s) =>
        s.params.length === 0
          ? client.query({ text: s.sql })
          : client.query({ name: pgStatementName(s.sql), text: s.sql, values: s.params as string[] }),
      ),
    )
  } finally {
    client.release()
  }
}

/** The shop cell's statements in one simple-protocol message, no BEGIN (one implicit transaction). */
async function simpleStatements(c: DriverClient, statements: readonly RawStatement[]): Promise<void> {
  const text = statements.map((s) => inlineNullable(s.sql, s.params)).join(';\n')
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
      // The shop cells: pipeflush's statements for each unit, planned untimed on a connection of their own.
      const shop = rawShop(driver, target.url)
      const sendShop = kind === 'raw-simple' ? simpleStatements : pipelinedStatements
      let prepared: RawStatement[] | undefined
      return {
        counter: c.counter,
        async flush(work) {
          if (!work.shop) return send(c, texts, work)
          const statements = prepared
          prepared = undefined
          if (!statements) throw new Error(`${seriesId(kind, driver)}: shop cell flushed without prepare`)
          // A read cell's statements hold their own BEGIN and COMMIT: pipelined as they are.
          if (kind === 'raw-pipeline' && readsOnly(work.shop)) await pipelinedReads(c, statements)
          else await sendShop(c, statements)
        },
        async prepare(work) {
          prepared = await shop.prepare(work)
        },
        query: c.query,
        async close() {
          await shop.close()
          await c.close()
        },
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
