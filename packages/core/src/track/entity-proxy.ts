import { PipeflushError } from '../errors.ts'
import { writableColumn } from '../schema/checks.ts'
import { sameValue } from '../values/index.ts'
import { type Entity, type EntityState, registerState } from './entity-state.ts'

/**
 * Wraps `state.row` in a Proxy: reading a column is a plain property read; assigning a column is a
 * change the next flush writes; an unknown column, a primary key or version column of a stored row,
 * or any write to a removed entity is a clear error at once.
 */
export function makeEntity(state: EntityState, onTouch: (state: EntityState) => void): Entity {
  const { table } = state
  const entity = new Proxy(state.row, {
    // Rows have no prototype (a column may be named __proto__); entities still behave as plain objects.
    get(target, prop, receiver) {
      if (typeof prop === 'string' && (Object.hasOwn(target, prop) || table.columnsByName.has(prop)))
        return target[prop]
      return Reflect.get(Object.prototype, prop, receiver)
    },
    getPrototypeOf: () => Object.prototype,
    has: (target, prop) =>
      (typeof prop === 'string' && Object.hasOwn(target, prop)) || prop in Object.prototype,
    preventExtensions() {
      throw new PipeflushError('INVALID_STATE', `A ${table.key} entity cannot be frozen or sealed.`, {
        table: table.key,
      })
    },
    set(target, prop, value) {
      if (typeof prop === 'symbol') return Reflect.set(target, prop, value)
      const stored = state.status === 'managed'
      const key = table.primaryKey.includes(prop)
      // A stored row's key may be assigned the value it has (in any form); a column the server fills
      // on every write (identity always) may not be assigned at all.
      const column = writableColumn(table, prop, stored && !key ? 'update' : 'insert')
      if (state.status === 'removed' || state.status === 'detached') {
        throw new PipeflushError(
          'INVALID_STATE',
          `Cannot assign ${table.key}.${prop}: the entity is ${state.status}.`,
          { table: table.key, column: prop },
        )
      }
      if (stored && key && !sameValue(target[prop], value, column)) {
        throw new PipeflushError(
          'INVALID_STATE',
          `Cannot change primary key column ${table.key}.${prop} of a stored row; remove it and create a new one.`,
          {
            table: table.key,
            column: prop,
          },
        )
      }
      if (prop === table.versionColumn && state.status === 'managed') {
        throw new PipeflushError(
          'INVALID_STATE',
          `${table.key}.${prop} is the version column: pipeflush increments it on every update.`,
          {
            table: table.key,
            column: prop,
          },
        )
      }
      target[prop] = value
      onTouch(state)
      return true
    },
    deleteProperty(_target, prop) {
      throw new PipeflushError(
        'INVALID_STATE',
        `Cannot delete property ${String(prop)} of a ${table.key} entity; assign null instead.`,
        {
          table: table.key,
        },
      )
    },
    defineProperty(_target, prop) {
      throw new PipeflushError(
        'INVALID_STATE',
        `Cannot define property ${String(prop)} on a ${table.key} entity.`,
        { table: table.key },
      )
    },
  })
  state.entity = entity
  registerState(entity, state)
  return entity
}
