/**
 * How an insert becomes an upsert: `on conflict (conflict) do update set <update> = excluded.<update>`.
 * What `em.upsert` records with the entity, and what the planner writes.
 *
 * @example
 * const spec: UpsertSpec = { conflict: ['name'], update: [] } // get or create by name
 */
export interface UpsertSpec {
  /** Columns of a unique constraint or primary key. */
  readonly conflict: readonly string[]
  /** Columns to overwrite on conflict; empty means `do nothing`. */
  readonly update: readonly string[]
}
