import type { ShopTable } from './shop-schema.ts'

/** A value of a column: what every library accepts for the shop's column types. */
export type Value = string | number | boolean | null | Date | { readonly [key: string]: string | number }

/** A foreign key to a row created earlier in the same unit of work (its index in `inserts`). */
export interface Ref {
  readonly ref: number
}

/** A new row. Foreign keys are an existing row's id (a number) or a {@link Ref}. */
export interface NewRow {
  readonly table: ShopTable
  readonly values: Readonly<Record<string, Value | Ref>>
}

/** Rows loaded before any change: `column` = any of `ids`. */
export interface Read {
  readonly table: ShopTable
  readonly column: 'id' | 'purchase_id'
  readonly ids: readonly number[]
}

/** New values of some columns of a loaded row. */
export interface Update {
  readonly table: ShopTable
  readonly id: number
  readonly set: Readonly<Record<string, Value>>
}

/** A loaded row to delete. */
export interface Delete {
  readonly table: ShopTable
  readonly id: number
}

/**
 * One unit of work of the realistic workload, as plain data every library's runner replays: load
 * rows, create rows (parents before children), change loaded rows, delete loaded rows, flush once.
 * Updated and deleted rows are always among those read.
 */
export interface Unit {
  /** What the unit does in the shop (`checkout`, `amend`...). */
  readonly kind: string
  readonly reads: readonly Read[]
  readonly inserts: readonly NewRow[]
  readonly updates: readonly Update[]
  readonly deletes: readonly Delete[]
}

/** Whether `v` is a reference to a new row of the same unit. */
export function isRef(v: unknown): v is Ref {
  return typeof v === 'object' && v !== null && !(v instanceof Date) && 'ref' in v
}

/**
 * Tables a unit writes (inserts, updates, deletes).
 *
 * @example
 * tablesWritten(unit) // Set { 'purchase', 'purchase_line', 'audit_event' }
 */
export function tablesWritten(unit: Unit): Set<ShopTable> {
  return new Set([...unit.inserts, ...unit.updates, ...unit.deletes].map((c) => c.table))
}

/** Rows a unit writes. */
export function rowsWritten(unit: Unit): number {
  return unit.inserts.length + unit.updates.length + unit.deletes.length
}
