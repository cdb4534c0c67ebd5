/**
 * The messages a PostgreSQL server sends, encoded: each a type byte, a 4-byte length and a body.
 *
 * @example
 * serverMessages.readyForQuery('I') // Z, length 5, 'I'
 */

/** A column of a RowDescription: its name and type oid (text is 25). */
export interface ColumnDescription {
  readonly name: string
  readonly typeOid: number
}

/** The fields of an ErrorResponse or a NoticeResponse, by their protocol letter. */
export type ErrorFieldCodes = Readonly<Record<string, string | undefined>>

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeUInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

function cstring(s: string): Buffer {
  return Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])])
}

function int16(n: number): Buffer {
  const b = Buffer.alloc(2)
  b.writeInt16BE(n)
  return b
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0)
  return b
}

/** Storage size of the types a RowDescription may name here (-1: variable). */
const TYPE_LENGTHS: Readonly<Record<number, number>> = { 16: 1, 20: 8, 21: 2, 23: 4, 26: 4, 700: 4, 701: 8 }

/** The order in which PostgreSQL writes the fields of an error. */
const FIELD_ORDER = ['S', 'V', 'C', 'M', 'D', 'H', 'P', 'p', 'q', 'W', 's', 't', 'c', 'd', 'n', 'F', 'L', 'R']

export const serverMessages = {
  /** The one-byte answer to an SSLRequest or GSSENCRequest: `N`, no encryption. */
  refuseEncryption: (): Buffer => Buffer.from('N'),
  authenticationOk: (): Buffer => message('R', int32(0)),
  parameterStatus: (name: string, value: string): Buffer =>
    message('S', Buffer.concat([cstring(name), cstring(value)])),
  backendKeyData: (processId: number, secret: number): Buffer =>
    message('K', Buffer.concat([uint32(processId), uint32(secret)])),
  readyForQuery: (status: 'I' | 'T' | 'E'): Buffer => message('Z', Buffer.from(status)),
  rowDescription: (columns: readonly ColumnDescription[]): Buffer =>
    message(
      'T',
      Buffer.concat([
        int16(columns.length),
        ...columns.map((c) =>
          Buffer.concat([
            cstring(c.name),
            uint32(0), // table oid
            int16(0), // column number
            uint32(c.typeOid),
            int16(TYPE_LENGTHS[c.typeOid] ?? -1),
            int32(-1), // type modifier
            int16(0), // text format
          ]),
        ),
      ]),
    ),
  dataRow: (values: readonly (string | null)[]): Buffer =>
    message(
      'D',
      Buffer.concat([
        int16(values.length),
        ...values.map((v) => {
          if (v === null) return int32(-1)
          const bytes = Buffer.from(v, 'utf8')
          return Buffer.concat([int32(bytes.length), bytes])
        }),
      ]),
    ),
  commandComplete: (tag: string): Buffer => message('C', cstring(tag)),
  emptyQueryResponse: (): Buffer => message('I', Buffer.alloc(0)),
  errorResponse: (fields: ErrorFieldCodes): Buffer => message('E', fieldsBody(fields)),
  noticeResponse: (fields: ErrorFieldCodes): Buffer => message('N', fieldsBody(fields)),
  parseComplete: (): Buffer => message('1', Buffer.alloc(0)),
  bindComplete: (): Buffer => message('2', Buffer.alloc(0)),
  closeComplete: (): Buffer => message('3', Buffer.alloc(0)),
  noData: (): Buffer => message('n', Buffer.alloc(0)),
  portalSuspended: (): Buffer => message('s', Buffer.alloc(0)),
  parameterDescription: (typeOids: readonly number[]): Buffer =>
    message('t', Buffer.concat([int16(typeOids.length), ...typeOids.map(uint32)])),
  /** CopyInResponse in text format for `columns` columns. */
  copyInResponse: (columns: number): Buffer =>
    message(
      'G',
      Buffer.concat([Buffer.from([0]), int16(columns), ...Array.from({ length: columns }, () => int16(0))]),
    ),
}

function fieldsBody(fields: ErrorFieldCodes): Buffer {
  const parts: Buffer[] = []
  const keys = [...FIELD_ORDER, ...Object.keys(fields).filter((k) => !FIELD_ORDER.includes(k))]
  for (const key of keys) {
    const value = fields[key]
    if (value !== undefined) parts.push(Buffer.from(key, 'latin1'), cstring(value))
  }
  parts.push(Buffer.from([0]))
  return Buffer.concat(parts)
}
