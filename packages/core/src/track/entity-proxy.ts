import { errors } from '../errors.ts'
import { writableColumn } from '../schema/checks.ts'
import type { TableModel } from '../schema/model.ts'
import { sameValue } from '../values/index.ts'
import { type Entity, type EntityState, STATE } from './entity-state.ts'

/** What {@link Navigate} answers for a property that is not a relation of the entity's table. */
export const NOT_A_RELATION: unique symbol = Symbol('pipeflush.notARelation')

/**
 * Reads relation `name` of the entity of `state` (its related entities as loaded), or answers
 * {@link NOT_A_RELATION}.
 */
export type Navigate = (state: EntityState, name: string) => unknown

/**
 * The Proxy handler of one entity: one object per entity (its traps on the prototype), which also
 * answers {@link STATE} with the entity's state, so finding the state of an entity needs no map.
 */
class EntityHandler implements ProxyHandler<Record<string, unknown>> {
  readonly state: EntityState
  readonly table: TableModel
  readonly onTouch: (state: EntityState) => void
  readonly navigate: Navigate | undefined

  constructor(state: EntityState, onTouch: (state: EntityState) => void, navigate: Navigate | undefined) {
    this.state = state
    this.table = state.table
    this.onTouch = onTouch
    this.navigate = navigate
  }

  // Rows have no prototype (a column may be named __proto__); entities still behave as plain objects.
  get(target: Record<string, unknown>, prop: string | symbol, receiver: unknown): unknown {
    if (typeof prop === 'string') {
      if (Object.hasOwn(target, prop) || this.table.columnsByName.has(prop)) return target[prop]
      if (this.navigate !== undefined) {
        const related = this.navigate(this.state, prop)
        if (related !== NOT_A_RELATION) return related
      }
    } else if (prop === STATE) {
      return this.state
    }
    return Reflect.get(Object.prototype, prop, receiver)
  }

  getPrototypeOf(): object {
    return Object.prototype
  }

  has(target: Record<string, unknown>, prop: string | symbol): boolean {
    return (typeof prop === 'string' && Object.hasOwn(target, prop)) || prop in Object.prototype
  }

  preventExtensions(): boolean {
    throw errors.entityFrozen(this.table.key)
  }

  set(target: Record<string, unknown>, prop: string | symbol, value: unknown): boolean {
    if (typeof prop === 'symbol') return Reflect.set(target, prop, value)
    const { state, table } = this
    const stored = state.status === 'managed'
    const key = table.primaryKey.includes(prop)
    // A stored row's key may be assigned the value it has (in any form); a column the server fills
    // on every write (identity always) may not be assigned at all.
    const column = writableColumn(table, prop, stored && !key ? 'update' : 'insert')
    if (state.status === 'removed' || state.status === 'detached') {
      throw errors.assignToEntityIn(table.key, prop, state.status)
    }
    if (stored && key && !sameValue(target[prop], value, column)) {
      throw errors.storedKeyChanged(table.key, prop)
    }
    if (prop === table.versionColumn && state.status === 'managed') {
      throw errors.versionAssigned(table.key, prop)
    }
    target[prop] = value
    this.onTouch(state)
    return true
  }

  deleteProperty(_target: Record<string, unknown>, prop: string | symbol): boolean {
    throw errors.propertyDeleted(this.table.key, String(prop))
  }

  defineProperty(_target: Record<string, unknown>, prop: string | symbol): boolean {
    throw errors.propertyDefined(this.table.key, String(prop))
  }
}

/**
 * Wraps `state.row` in a Proxy: reading a column is a plain property read; assigning a column is a
 * change the next flush writes; an unknown column, a primary key or version column of a stored row,
 * or any write to a removed entity is a clear error at once. Reading a relation of the table (not a
 * column) gives `navigate`'s answer. `stateOf(entity)` gives `state` back.
 *
 * Entities stay plain-looking objects while every assignment is seen, and checked, at once.
 */
export function makeEntity(
  state: EntityState,
  onTouch: (state: EntityState) => void,
  navigate?: Navigate,
): Entity {
  const entity = new Proxy(state.row, new EntityHandler(state, onTouch, navigate))
  state.entity = entity
  return entity
}
