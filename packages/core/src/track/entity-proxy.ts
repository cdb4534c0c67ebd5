import { PipeflushError } from '../errors.ts'
import { writableColumn } from '../schema/checks.ts'
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
    set(target, prop, value) {
      if (typeof prop === 'symbol') return Reflect.set(target, prop, value)
      writableColumn(table, prop, 'insert')
      if (state.status === 'removed' || state.status === 'detached') {
        throw new PipeflushError(
          'INVALID_STATE',
          `Cannot assign ${table.key}.${prop}: the entity is ${state.status}.`,
          { table: table.key, column: prop },
        )
      }
      if (state.status === 'managed' && table.primaryKey.includes(prop) && target[prop] !== value) {
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
