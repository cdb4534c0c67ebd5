import type { TableModel } from '../schema/model.ts'

/** Where an entity is in its life. */
export type EntityStatus = 'new' | 'managed' | 'removed' | 'detached'

/** A row as the application sees it: its columns by name. */
export type Entity = Record<string, unknown>

/** What the unit of work knows about one entity. The entity itself is a Proxy over `row`. */
export interface EntityState {
  readonly table: TableModel
  status: EntityStatus
  /** The values the application sees and assigns. */
  readonly row: Record<string, unknown>
  /** The values the database holds (decoded), for dirty checking; null for new entities. */
  snapshot: Record<string, unknown> | null
  /** Identity-map key (canonical primary key), once known. */
  key: string | null
  /** The unit of work that tracks it. */
  readonly owner: object
  /** The proxy handed to the application. */
  entity: Entity
}

const states = new WeakMap<object, EntityState>()

/** The state behind an entity, or undefined when `value` is not an entity of pipeflush. */
export function stateOf(value: unknown): EntityState | undefined {
  return typeof value === 'object' && value !== null ? states.get(value) : undefined
}

export function registerState(entity: object, state: EntityState): void {
  states.set(entity, state)
}
