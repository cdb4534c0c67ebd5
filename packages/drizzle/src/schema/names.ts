/** PostgreSQL's NAMEDATALEN - 1. */
const MAX_NAME_LENGTH = 63

/**
 * PostgreSQL's makeObjectName: `name1_name2_label`, the longer part shortened first to fit 63
 * characters (the name PostgreSQL gives a serial column's sequence: `book_id_seq`).
 *
 * @example
 * makeObjectName('book', 'id', 'seq') // 'book_id_seq'
 */
export function makeObjectName(name1: string, name2: string, label: string): string {
  const available = MAX_NAME_LENGTH - label.length - 2
  let length1 = name1.length
  let length2 = name2.length
  while (length1 + length2 > available) {
    if (length1 > length2) length1--
    else length2--
  }
  return `${name1.slice(0, length1)}_${name2.slice(0, length2)}_${label}`
}

/** A double-quoted SQL identifier, `"` doubled inside. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
