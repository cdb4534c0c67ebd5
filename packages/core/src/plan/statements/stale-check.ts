import type { TableModel } from '../../model/model.ts'
import type { PlannedStatement } from '../types.ts'
import { STALE_MARKER } from './stale-marker.ts'

/** What a failed row-count check of an update or delete reports. */
export interface StaleRows {
  /** Key of the table (as in the schema model). */
  readonly table: string
  /**
   * The keys that did not match, as sent (each element's text form): the text itself for a single-column
   * primary key, a JSON array of the texts (`["7","x"]`) for a composite one.
   */
  readonly keys: string[]
  /** The same keys, always as tuples of texts in primary key order. */
  readonly keyTuples: string[][]
  /** Rows the statement had to match. */
  readonly expected: number
  /** Rows it matched. */
  readonly matched: number
}

const INVALID_TEXT_REPRESENTATION = '22P02'
const MAX_CAUSE_DEPTH = 5

function messageOf(error: unknown): string | undefined {
  if (typeof error === 'string') return error
  if (
    typeof error === 'object' &&
    error !== null &&
    'message' in error &&
    typeof error.message === 'string'
  ) {
    return error.message
  }
  return undefined
}

function parsePayload(message: string): StaleRows | null {
  const start = message.indexOf(STALE_MARKER)
  if (start < 0) return null
  const from = start + STALE_MARKER.length
  // PostgreSQL quotes the input: `invalid input syntax for type integer: "pipeflush:stale:{...}"`.
  const end = message.lastIndexOf('}')
  if (end < from) return null
  let payload: unknown
  try {
    payload = JSON.parse(message.slice(from, end + 1))
  } catch {
    return null
  }
  if (typeof payload !== 'object' || payload === null) return null
  const { table, expected, matched, sent } = payload as Record<string, unknown>
  const written = (payload as Record<string, unknown>)['matched_keys']
  if (typeof table !== 'string' || !isTextTable(sent) || !isTextTable(written)) return null
  // `sent` holds one array per key column; `matched_keys` one tuple per written row.
  const rows = sent[0]?.length ?? 0
  if (sent.some((column) => column.length !== rows)) return null
  const done = new Set(written.map((tuple) => JSON.stringify(tuple)))
  const keyTuples: string[][] = []
  for (let row = 0; row < rows; row++) {
    const tuple = sent.map((column) => column[row]!)
    if (!done.has(JSON.stringify(tuple))) keyTuples.push(tuple)
  }
  return {
    table,
    keys: keyTuples.map((tuple) => (tuple.length === 1 ? tuple[0]! : JSON.stringify(tuple))),
    keyTuples,
    expected: typeof expected === 'number' ? expected : Number.NaN,
    matched: typeof matched === 'number' ? matched : Number.NaN,
  }
}

/** An array of arrays of strings. */
function isTextTable(value: unknown): value is string[][] {
  return (
    Array.isArray(value) &&
    value.every((inner) => Array.isArray(inner) && inner.every((part) => typeof part === 'string'))
  )
}

/**
 * Recognises the server error of an update or delete that matched fewer rows than it had to (a row
 * gone, or its version changed), so the executor can report `OPTIMISTIC_LOCK`. Accepts a driver error
 * (postgres.js or node-postgres: `code === '22P02'` and the pipeflush marker in `message`), an error
 * whose `cause` is one, or a bare message. Returns null for anything else.
 */
export function parseStaleError(error: unknown): StaleRows | null {
  let current = error
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    const message = messageOf(current)
    const code = typeof current === 'object' && 'code' in current ? current.code : undefined
    if (message !== undefined && (code === undefined || code === INVALID_TEXT_REPRESENTATION)) {
      const parsed = parsePayload(message)
      if (parsed !== null) return parsed
    }
    current = typeof current === 'object' && 'cause' in current ? current.cause : undefined
  }
  return null
}

/**
 * Maps the keys of a {@link StaleRows} back to the statement's own keys (`statement.keys`, the values the
 * change set gave), by comparing them with the primary key parameters the statement sent (an update's or
 * a delete's first parameters are its primary key columns).
 *
 * `OPTIMISTIC_LOCK` names the rows by the keys the application gave, not by the texts sent.
 */
export function staleStatementKeys(
  table: TableModel,
  statement: PlannedStatement,
  stale: StaleRows,
): unknown[] {
  const keyParams = statement.params.slice(0, table.primaryKey.length)
  const rowByKey = new Map<string, number>()
  for (let row = 0; row < statement.rowCount; row++) {
    rowByKey.set(JSON.stringify(keyParams.map((param) => param[row])), row)
  }
  const keys: unknown[] = []
  for (const tuple of stale.keyTuples) {
    const row = rowByKey.get(JSON.stringify(tuple))
    keys.push(row === undefined ? (tuple.length === 1 ? tuple[0] : tuple) : statement.keys[row])
  }
  return keys
}
