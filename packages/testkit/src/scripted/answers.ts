import type { BoundValue } from './client-messages.ts'
import type { ColumnDescription, ErrorFieldCodes } from './server-messages.ts'

/** A value of a row: its text form, or NULL; numbers, bigints and booleans are written as PostgreSQL prints them. */
export type CellValue = string | number | bigint | boolean | null

/** A column of an answer's rows: a name (typed `text`, oid 25), or a name and a type oid. */
export type ColumnSpec = string | { readonly name: string; readonly type?: number }

/** Rows: a row set, its command tag `SELECT <n>` unless `tag` says otherwise (`INSERT 0 2` for `returning`). */
export interface RowsAnswer {
  /** Columns in order; default the keys of the first row (rows as objects), all typed `text`. */
  readonly columns?: readonly ColumnSpec[]
  /** Rows as objects (column name to value) or as arrays in the order of `columns`. */
  readonly rows: readonly (readonly CellValue[] | Readonly<Record<string, CellValue>>)[]
  readonly tag?: string
}

/** A command that returns no rows: its tag (`INSERT 0 3`, `UPDATE 1`, `COMMIT`, `ROLLBACK`...). */
export interface TagAnswer {
  readonly tag: string
}

/**
 * The fields of an ErrorResponse. `code` is the SQLSTATE; `severity` FATAL also closes the connection
 * once written, as PostgreSQL does.
 */
export interface ErrorFields {
  readonly code: string
  readonly message: string
  readonly severity?: 'ERROR' | 'FATAL' | 'PANIC'
  readonly detail?: string
  readonly hint?: string
  /**
   * 1-based character position in the statement's text; in a Query of several statements the server
   * reports it in the whole text of the message, as PostgreSQL does.
   */
  readonly position?: number
  readonly where?: string
  readonly schema?: string
  readonly table?: string
  readonly column?: string
  readonly dataType?: string
  readonly constraint?: string
  readonly routine?: string
}

/** An ErrorResponse (the statement fails, the rest of the message or of the pipeline up to Sync is skipped). */
export interface ErrorAnswer {
  readonly error: ErrorFields
}

/** How the scripted server answers one statement. */
export type Answer = RowsAnswer | TagAnswer | ErrorAnswer

/** A statement the client asked the server to run, as handlers see it. */
export interface ScriptedStatement {
  /** The statement's text: one statement of a Query message, or the text a Parse gave. */
  readonly text: string
  /** `text` with comments dropped and whitespace collapsed (what string matches compare with). */
  readonly normalized: string
  /** The parameters a Bind gave (text, or bytes for binary ones); empty for a simple-protocol statement. */
  readonly params: readonly BoundValue[]
  readonly protocol: 'simple' | 'extended'
  /** The connection's number (1 for the first the server accepted). */
  readonly connection: number
  /** The process id the connection was given (in its BackendKeyData). */
  readonly processId: number
  /** The transaction status before the statement: idle, in a transaction block, or in a failed one. */
  readonly status: 'I' | 'T' | 'E'
  /** The data a `COPY ... FROM STDIN` received (undefined for other statements). */
  readonly copyData?: Buffer | undefined
  /** True when only the statement's columns are asked for (a Describe of a prepared statement, before any Bind). */
  readonly describing: boolean
}

/** An answer made ready to write: its columns (none for a command), rows, tag, or error. */
export type ResolvedAnswer =
  | {
      readonly kind: 'rows'
      readonly columns: readonly ColumnDescription[]
      readonly rows: readonly (readonly (string | null)[])[]
      readonly tag: string
    }
  | { readonly kind: 'tag'; readonly tag: string }
  | { readonly kind: 'error'; readonly error: ErrorFields }

/** An answer in the shape the server writes (columns resolved, values as text). */
export function resolveAnswer(answer: Answer): ResolvedAnswer {
  if ('error' in answer) return { kind: 'error', error: answer.error }
  if (!('rows' in answer)) return { kind: 'tag', tag: answer.tag }
  const first = answer.rows[0]
  const specs: readonly ColumnSpec[] =
    answer.columns ?? (first !== undefined && !Array.isArray(first) ? Object.keys(first) : [])
  const columns = specs.map((s) =>
    typeof s === 'string' ? { name: s, typeOid: 25 } : { name: s.name, typeOid: s.type ?? 25 },
  )
  const rows = answer.rows.map((row) => {
    const cells = Array.isArray(row)
      ? (row as readonly CellValue[])
      : columns.map((c) => (row as Readonly<Record<string, CellValue>>)[c.name] ?? null)
    return cells.map(cellText)
  })
  return { kind: 'rows', columns, rows, tag: answer.tag ?? `SELECT ${rows.length}` }
}

/** The fields of an error (or, with `severity` WARNING, a notice) as the protocol names them. */
export function errorFieldCodes(
  error: ErrorFields,
  severity: string = error.severity ?? 'ERROR',
): ErrorFieldCodes {
  return {
    S: severity,
    V: severity,
    C: error.code,
    M: error.message,
    D: error.detail,
    H: error.hint,
    P: error.position === undefined ? undefined : String(error.position),
    W: error.where,
    s: error.schema,
    t: error.table,
    c: error.column,
    d: error.dataType,
    n: error.constraint,
    F: 'scripted.c',
    L: '1',
    R: error.routine ?? 'scripted',
  }
}

function cellText(v: CellValue): string | null {
  if (v === null) return null
  if (typeof v === 'boolean') return v ? 't' : 'f'
  return String(v)
}
