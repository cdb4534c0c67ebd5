import type { RowLock } from '../connection/held-transaction.ts'
import type { Row } from '../drivers/driver.ts'
import type { PipeflushError } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import { rowKey } from '../track/keys.ts'
import { emptyRow } from '../track/row.ts'
import { encodeKeyValue } from '../values/index.ts'
import { decodeRow } from './decode-row.ts'
import type { BatchItem, ReadStatement } from './read-batch.ts'
import { keySetSql, loadKeyAt, orderBy, selectList, textParams } from './select-sql.ts'

/**
 * Throws `INVALID_VALUE` for a key given to load that cannot be sent (a `varchar(3)` key given four
 * letters): checked before the load joins its tick's select, so that it fails alone and the other
 * loads go (the select would fail for all of them).
 */
export function checkLoadKey(table: TableModel, where: Readonly<Record<string, unknown>>): void {
  for (let i = 0; i < table.primaryKey.length; i++) {
    const name = table.primaryKey[i]!
    encodeKeyValue(where[name], table.columnsByName.get(name)!, loadKeyAt(table))
  }
}

interface Waiter {
  readonly resolve: (row: Record<string, unknown> | undefined) => void
  readonly reject: (error: PipeflushError) => void
}

/**
 * The loads of one table by key started in one tick, gathered into one select (`= any(...)` of the
 * keys, or an unnest of them for a composite key) of the read batch: each load gets its row, or
 * undefined when the table has none with its key.
 *
 * With `lock`, the locking loads (`for update` or `for share`): one select of them all, which locks
 * the rows in key order (its `order by`), whatever order the loads came in. Two requests locking the
 * same rows so wait for each other instead of deadlocking.
 */
export class KeyLoads implements BatchItem {
  readonly what: string
  readonly #table: TableModel
  readonly #lock: RowLock | undefined
  readonly #keys = new Map<string, { where: Readonly<Record<string, unknown>>; waiters: Waiter[] }>()

  constructor(table: TableModel, lock?: RowLock) {
    this.#table = table
    this.#lock = lock
    this.what = `Reading ${table.key}`
  }

  /** The row of canonical key `key` (`where`: its key columns), with the other loads of this tick. */
  add(key: string, where: Readonly<Record<string, unknown>>): Promise<Record<string, unknown> | undefined> {
    return new Promise((resolve, reject) => {
      let entry = this.#keys.get(key)
      if (entry === undefined) {
        entry = { where, waiters: [] }
        this.#keys.set(key, entry)
      }
      entry.waiters.push({ resolve, reject })
    })
  }

  statements(): readonly ReadStatement[] {
    const t = this.#table
    const { sql, params } = keySetSql(
      t,
      [...this.#keys.values()].map((k) => k.where),
      't',
      1,
    )
    const text = `select ${selectList(t)} from ${t.sqlName} as t where ${sql}${orderBy(t, 't')}`
    if (this.#lock === undefined) return [{ text, params: textParams(params) }]
    return [{ text: `${text} for ${this.#lock}`, params: textParams(params), locking: true }]
  }

  settle(rowSets: readonly (readonly Row[])[]): void {
    const found = new Map<string, Record<string, unknown>>()
    for (const raw of rowSets[0] ?? []) {
      const row = decodeRow(this.#table, raw)
      const key = rowKey(this.#table, row)
      if (key !== null) found.set(key, row)
    }
    for (const [key, { waiters }] of this.#keys) {
      // Each waiter its own copy: a row becomes an entity's, which the application may change.
      const row = found.get(key)
      for (let i = 0; i < waiters.length; i++)
        waiters[i]!.resolve(row === undefined || i === 0 ? row : Object.assign(emptyRow(), row))
    }
  }

  fail(error: PipeflushError): void {
    for (const { waiters } of this.#keys.values()) {
      for (const w of waiters) w.reject(error)
    }
  }
}
