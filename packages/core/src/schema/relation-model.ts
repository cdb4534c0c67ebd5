/**
 * A relation between two tables, derived from a foreign key (see `relationsOf`):
 * - `many-to-one`: the table's foreign key `columns` reference `target`'s `targetColumns` (book ->
 *   author): one entity or null;
 * - `one-to-many`: its inverse, rows of `target` whose `targetColumns` reference the table's
 *   `columns` (author -> books);
 * - `one-to-one`: the inverse of a foreign key that is also its table's primary key or a unique
 *   constraint (thread -> thread_stat keyed by its `thread_id`): one entity or null;
 * - `many-to-many`: rows of `target` linked through a table whose primary key is two foreign keys
 *   (book <-> tag through book_tag): `through.columns` reference the table's `columns`,
 *   `through.targetColumns` reference `target`'s `targetColumns`.
 */
export interface RelationModel {
  readonly name: string
  readonly kind: 'many-to-one' | 'one-to-many' | 'one-to-one' | 'many-to-many'
  /** The table the relation belongs to (its key). */
  readonly table: string
  /** The table of the related rows. */
  readonly target: string
  /** Columns of `table` the relation joins on. */
  readonly columns: readonly string[]
  /** Columns of `target` matched to {@link columns}, in order (many-to-many: `target`'s key). */
  readonly targetColumns: readonly string[]
  /** The foreign key it comes from (many-to-many: the link table's key to `target`). */
  readonly foreignKey: string
  readonly through?: {
    readonly table: string
    /** The link table's columns referencing `table`'s {@link columns}. */
    readonly columns: readonly string[]
    /** The link table's columns referencing `target`'s {@link targetColumns}. */
    readonly targetColumns: readonly string[]
  }
}
