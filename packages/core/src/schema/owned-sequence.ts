import { quoteIdentifier } from '../values/identifier.ts'

/** A column whose sequence the server finds (see {@link ownedSequence}): its table, qualified and quoted, and its name. */
export interface SequenceOwner {
  readonly table: string
  readonly column: string
}

/**
 * The owners of the sequences named by {@link ownedSequence}, by name. A name is made from its
 * schema, table and column only, so it has one owner whichever schema declared it.
 */
const owners = new Map<string, SequenceOwner>()

/**
 * The sequence of a serial or identity column declared in code without its sequence's name: the name
 * PostgreSQL gives it when the table is created (`<table>_<column>_seq`, shortened to fit 63 bytes,
 * `_seq1`... when another column's makes the same), qualified and quoted, which names it in errors
 * and pools its ids. The sequence itself is found by the
 * server from the column when ids are drawn (`pg_get_serial_sequence`: see `fetchIdsSql`): a table
 * renamed since keeps its sequence's old name, and a tool may have named it otherwise.
 *
 * @example
 * ownedSequence('public', 'author', 'id') // '"public"."author_id_seq"', owned by "public"."author".id
 */
export function ownedSequence(schema: string, table: string, column: string): string {
  const owner = { table: `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`, column }
  // Two columns whose names make the same one (long names cut to 63 bytes, `a_b.c` and `a.b_c`) have
  // two sequences, the server naming the second `..._seq1`: each column gets a name of its own, as the
  // server's (its ids pooled apart), whichever table it declares first.
  for (let pass = 0; ; pass++) {
    const label = pass === 0 ? 'seq' : `seq${pass}`
    const name = `${quoteIdentifier(schema)}.${quoteIdentifier(makeObjectName(table, column, label))}`
    const known = owners.get(name)
    if (known !== undefined && (known.table !== owner.table || known.column !== column)) continue
    owners.set(name, owner)
    return name
  }
}

/** The column whose sequence `name` is, when {@link ownedSequence} named it. */
export function sequenceOwner(name: string): SequenceOwner | undefined {
  return owners.get(name)
}

/** PostgreSQL's NAMEDATALEN - 1. */
const MAX_NAME_LENGTH = 63

/**
 * PostgreSQL's makeObjectName: `name1_name2_label`, the longer part shortened first to fit 63 bytes
 * (UTF-8, the server's encoding), each part then cut at a character's end, as the server does.
 *
 * @example
 * makeObjectName('book', 'author_id', 'fkey') // 'book_author_id_fkey'
 */
export function makeObjectName(name1: string, name2: string, label: string): string {
  const available = MAX_NAME_LENGTH - Buffer.byteLength(label) - 2
  let length1 = Buffer.byteLength(name1)
  let length2 = Buffer.byteLength(name2)
  while (length1 + length2 > available) {
    if (length1 > length2) length1--
    else length2--
  }
  return `${clipBytes(name1, length1)}_${clipBytes(name2, length2)}_${label}`
}

/** The longest start of `name` of whole characters within `bytes` bytes of UTF-8 (the server's pg_mbcliplen). */
function clipBytes(name: string, bytes: number): string {
  let used = 0
  let end = 0
  for (const char of name) {
    const size = Buffer.byteLength(char)
    if (used + size > bytes) break
    used += size
    end += char.length
  }
  return name.slice(0, end)
}
