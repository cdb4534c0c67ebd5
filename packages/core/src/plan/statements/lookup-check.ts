import { LOOKUP_MARKER } from './stale-marker.ts'

/** What a failed lookup of an upserted row reports (see `lookup-sql.ts`). */
export interface MissingLookup {
  /** Key of the statement's table. */
  readonly table: string
  /** The column of the statement's table that references the upserted row. */
  readonly column: string
  /** Key of the upserted row's table. */
  readonly target: string
}

/**
 * Recognises the server error of a statement whose row references a row upserted by the flush that
 * its lookup (by the upsert's conflict values) did not find: the message holds the marker and a JSON
 * payload (`invalid input syntax for type integer: "pipeflush:lookup:{...}"`). Null for anything else.
 *
 * @example
 * parseMissingLookup('invalid input syntax for type integer: "pipeflush:lookup:{"table":"book_tag","column":"tag_id","target":"tag"}"')
 * // { table: 'book_tag', column: 'tag_id', target: 'tag' }
 */
export function parseMissingLookup(message: string | undefined): MissingLookup | null {
  if (message === undefined) return null
  const start = message.indexOf(LOOKUP_MARKER)
  if (start < 0) return null
  const from = start + LOOKUP_MARKER.length
  const end = message.lastIndexOf('}')
  if (end < from) return null
  try {
    const payload = JSON.parse(message.slice(from, end + 1)) as Record<string, unknown>
    const { table, column, target } = payload
    return typeof table === 'string' && typeof column === 'string' && typeof target === 'string'
      ? { table, column, target }
      : null
  } catch {
    return null
  }
}
