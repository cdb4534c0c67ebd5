import type { PlannedStatement } from '../plan/types.ts'

/** About how many bytes each chunk of COPY data holds (a chunk ends with a whole row). */
export const COPY_CHUNK_BYTES = 64 * 1024

const SPECIAL = /[\\\t\n\r]/
const SPECIALS = /[\\\t\n\r]/g
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/**
 * A value's text form as a field of COPY's text format: backslash, tab, newline and carriage return
 * escaped, SQL NULL as `\N`. The values were validated while planning (no NUL character, no lone
 * surrogate), so nothing else needs care.
 *
 * COPY's text format has no quoting: a tab or newline left as it is would split the row.
 */
export function copyField(text: string | null): string {
  if (text === null) return '\\N'
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c]!) : text
}

/**
 * The data of a COPY statement (`statement.copy`): its rows in COPY's text format (fields separated
 * by tabs, one line per row, in the statement's row order), UTF-8 encoded, in chunks of about
 * {@link COPY_CHUNK_BYTES} bytes: what the drivers write as they are. Each field is written straight
 * into its chunk (a string built for the data, then encoded, cost twice the time and most of the
 * garbage of a 100,000-row flush).
 */
export function copyData(statement: Pick<PlannedStatement, 'params' | 'rowCount'>): Buffer[] {
  const columns = statement.params
  const last = columns.length - 1
  const chunks: Buffer[] = []
  let chunk = Buffer.allocUnsafe(CHUNK_SPACE)
  let at = 0
  for (let r = 0; r < statement.rowCount; r++) {
    if (last < 0) chunk[at++] = NEWLINE // a row of no columns
    for (let c = 0; c <= last; c++) {
      const text = columns[c]![r] ?? null
      const field = text === null ? '\\N' : SPECIAL.test(text) ? copyField(text) : text
      // At most 3 bytes per UTF-16 code unit, and the separator.
      if (at + field.length * 3 + 1 > chunk.length) {
        if (at > 0) chunks.push(chunk.subarray(0, at))
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_SPACE, field.length * 3 + 1))
        at = 0
      }
      at += writeText(chunk, field, at)
      chunk[at++] = c === last ? NEWLINE : TAB
    }
    if (at >= COPY_CHUNK_BYTES) {
      chunks.push(chunk.subarray(0, at))
      chunk = Buffer.allocUnsafe(CHUNK_SPACE)
      at = 0
    }
  }
  if (at > 0) chunks.push(chunk.subarray(0, at))
  return chunks
}

/**
 * Writes `text` as UTF-8 into `chunk` at `at` (room checked by the caller) and answers the bytes
 * written: ASCII byte by byte (a native write per field cost more than the copy), else natively.
 */
function writeText(chunk: Buffer, text: string, at: number): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code > 127) return chunk.write(text, at)
    chunk[at + i] = code
  }
  return text.length
}

/** A chunk's room: its size and the largest row that usually follows. */
const CHUNK_SPACE = COPY_CHUNK_BYTES + 16 * 1024
const TAB = 9
const NEWLINE = 10
