/** Ids the seeded rows hold (see `RESET`); rows the script creates take ids from 101 on. */
const SEEDED_IDS = 100

const DECIMAL = /^-?\d+(\.\d+)?$/

/**
 * An answer with the ids of rows the script created replaced by `'new'` (each bookstore draws new
 * ids its own way, pipeflush from blocks drawn ahead, so only the seeded rows' ids can be compared),
 * and decimal texts by their numbers: Drizzle's relational queries read the rows of a relation
 * through JSON, so a nested book's `numeric(8, 2)` price `'19.00'` comes as `'19'` (a select, and
 * pipeflush, give the column's text).
 *
 * @example
 * comparable({ id: 105, books: [{ id: 3, price: '19.00' }] }) // { id: 'new', books: [{ id: 3, price: 19 }] }
 */
export function comparable(answer: unknown): unknown {
  if (Array.isArray(answer)) return answer.map(comparable)
  if (typeof answer !== 'object' || answer === null) return answer
  return Object.fromEntries(
    Object.entries(answer).map(([k, v]) => [
      k,
      k === 'id' && typeof v === 'number' && v > SEEDED_IDS
        ? 'new'
        : typeof v === 'string' && DECIMAL.test(v)
          ? Number(v)
          : comparable(v),
    ]),
  )
}
