import type { ForeignKeyModel, TableModel } from '../model/model.ts'

/**
 * The two foreign keys of a link table: its primary key is exactly their columns (two distinct keys,
 * each over its own columns); undefined otherwise.
 *
 * @example
 * linkKeys(bookTag) // [book_tag_book_id_fkey, book_tag_tag_id_fkey] (primary key (book_id, tag_id))
 */
export function linkKeys(table: TableModel): readonly [ForeignKeyModel, ForeignKeyModel] | undefined {
  if (table.kind !== 'table' || table.foreignKeys.length < 2) return undefined
  const key = new Set(table.primaryKey)
  const inKey = table.foreignKeys.filter((fk) => fk.columns.every((c) => key.has(c)))
  if (inKey.length !== 2) return undefined
  const [a, b] = inKey as [ForeignKeyModel, ForeignKeyModel]
  const cols = new Set([...a.columns, ...b.columns])
  if (cols.size !== a.columns.length + b.columns.length || cols.size !== key.size) return undefined
  return [a, b]
}

/**
 * Whether `fk` makes its table one-to-one with the table it references: the table's primary key, or
 * one of its unique constraints (not a unique index without one: see `UniqueModel.index`), is exactly
 * the foreign key's columns (in any order), so at most one row references each target row.
 *
 * @example
 * isOneToOne(threadStat, threadStat.foreignKeys[0]!) // true: primary key ("threadId") references thread
 */
export function isOneToOne(table: TableModel, fk: ForeignKeyModel): boolean {
  const same = (columns: readonly string[]) =>
    columns.length === fk.columns.length && fk.columns.every((c) => columns.includes(c))
  return same(table.primaryKey) || table.uniques.some((u) => u.index !== true && same(u.columns))
}
