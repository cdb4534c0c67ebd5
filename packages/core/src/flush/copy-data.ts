import type { PlannedStatement } from '../plan/types.ts'

/** About how many characters each chunk of COPY data holds (a chunk ends with a whole row). */
export const COPY_CHUNK_CHARS = 64 * 1024

const SPECIAL = /[\\\t\n\r]/
const SPECIALS = /[\\\t\n\r]/g
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/**
 * A value's text form as a field of COPY's text format: backslash, tab, newline and carriage return
 * escaped, SQL NULL as `\N`. The values were validated while planning (no NUL character, no lone
 * surrogate), so nothing else needs care.
 *
 * @example
 * copyField('a\tb') // 'a\\tb'
 * copyField(null) // '\\N'
 */
export function copyField(text: string | null): string {
  if (text === null) return '\\N'
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c]!) : text
}

/**
 * The data of a COPY statement (`statement.copy`): its rows in COPY's text format (fields separated
 * by tabs, one line per row, in the statement's row order), in chunks of about
 * {@link COPY_CHUNK_CHARS} characters.
 *
 * @example
 * copyData({ params: [['1', '2'], ['a', null]], rowCount: 2 }) // ['1\ta\n2\t\\N\n']
 */
export function copyData(statement: Pick<PlannedStatement, 'params' | 'rowCount'>): string[] {
  const columns = statement.params
  const chunks: string[] = []
  let chunk = ''
  for (let r = 0; r < statement.rowCount; r++) {
    let line = ''
    for (let c = 0; c < columns.length; c++) {
      if (c > 0) line += '\t'
      line += copyField(columns[c]![r] ?? null)
    }
    chunk += `${line}\n`
    if (chunk.length >= COPY_CHUNK_CHARS) {
      chunks.push(chunk)
      chunk = ''
    }
  }
  if (chunk.length > 0) chunks.push(chunk)
  return chunks
}
