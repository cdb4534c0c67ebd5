import { TIMESTAMP_TEXT_BYTES, writeTimestampText } from '../../values/timestamp-bytes.ts'

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
 * COPY data in the making: rows in COPY's text format (fields separated by tabs, one line per row),
 * UTF-8 encoded, each field written straight into its chunk of about {@link COPY_CHUNK_BYTES} bytes
 * (a string built for the data, then encoded, cost twice the time and most of the garbage of a
 * 100,000-row flush). The chunks are Buffers: their bytes are outside the JavaScript heap.
 */
export class CopyChunks {
  readonly #chunks: Buffer[] = []
  #chunk = Buffer.allocUnsafe(CHUNK_SPACE)
  #at = 0

  /** Writes a field (a value's text, or null for SQL NULL), then a tab, or a newline when `last`. */
  field(text: string | null, last: boolean): void {
    const field = text === null ? '\\N' : SPECIAL.test(text) ? copyField(text) : text
    // At most 3 bytes per UTF-16 code unit, and the separator.
    if (this.#at + field.length * 3 + 1 > this.#chunk.length) {
      if (this.#at > 0) this.#chunks.push(this.#chunk.subarray(0, this.#at))
      this.#chunk = Buffer.allocUnsafe(Math.max(CHUNK_SPACE, field.length * 3 + 1))
      this.#at = 0
    }
    this.#at += writeText(this.#chunk, field, this.#at)
    this.#chunk[this.#at++] = last ? NEWLINE : TAB
  }

  /**
   * Writes the text of a timestamp (`timestamptz` when `withZone`) of time `ms` (see `writableTime`)
   * straight into the chunk, then a tab, or a newline when `last`: no string made.
   */
  timestampField(ms: number, withZone: boolean, last: boolean): void {
    if (this.#at + TIMESTAMP_TEXT_BYTES + 1 > this.#chunk.length) this.#close()
    this.#at = writeTimestampText(this.#chunk, this.#at, ms, withZone)
    this.#chunk[this.#at++] = last ? NEWLINE : TAB
  }

  /** Ends a row: a row of no columns is a newline; a chunk full enough is closed. */
  endRow(columns: number): void {
    if (columns === 0) {
      if (this.#at + 1 > this.#chunk.length) this.#close()
      this.#chunk[this.#at++] = NEWLINE
    }
    if (this.#at >= COPY_CHUNK_BYTES) this.#close()
  }

  /** How many chunks are closed and not taken yet (see {@link take}). */
  get closed(): number {
    return this.#chunks.length
  }

  /** The chunks closed so far, taken: later ones are given by the next `take` or {@link finish}. */
  take(): Buffer[] {
    return this.#chunks.splice(0)
  }

  /** The chunks written (those not taken), the last one closed. */
  finish(): Buffer[] {
    if (this.#at > 0) this.#chunks.push(this.#chunk.subarray(0, this.#at))
    this.#at = 0
    return this.#chunks
  }

  #close(): void {
    this.#chunks.push(this.#chunk.subarray(0, this.#at))
    this.#chunk = Buffer.allocUnsafe(CHUNK_SPACE)
    this.#at = 0
  }
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
