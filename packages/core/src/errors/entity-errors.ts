import { withArticle } from './article.ts'
import { PipeflushError } from './pipeflush-error.ts'

/**
 * Named constructors of errors about entities and their keys: an entity used in a way its state
 * does not allow, a reference it cannot hold, a key missing or already managed, a relation not
 * loaded, a row not found. Assembled into `errors` by `errors.ts`, the one entry importers use.
 */
export const entityErrors = {
  /**
   * A read's condition on `table`.`column` gives a new `target` entity whose key is not assigned yet
   * (a sequence's, assigned when it is flushed): no row can match it before then.
   */
  keylessInWhere(table: string, column: string, target: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `find(${table}): the condition on ${column} gives a new ${target} entity that has no key yet (it is assigned when the ${target} is flushed): flush it first. Nothing was sent.`,
      { table, column },
    )
  },

  /**
   * A value refers to a new entity whose key the server fills (a DEFAULT read back by the flush): its
   * key is not known before the flush that inserts it answers. Nothing was sent.
   */
  serverKeyReferenced(table: string, column: string, target: string, targetColumn: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} refers to a new ${target} entity whose "${targetColumn}" (what the foreign key references) the server fills (its DEFAULT, read back by the flush): it is not known until that flush answers. Flush the ${target} first, or give its key. Nothing was sent.`,
      { table, column },
    )
  },

  /**
   * A relation navigated on an entity whose related rows this unit of work did not load (`load`,
   * `find` or `populate` with `with`): pipeflush never reads behind the application's back.
   */
  notLoaded(table: string, relation: string, key: string | null): PipeflushError {
    return new PipeflushError(
      'NOT_LOADED',
      `${table}${key === null ? '' : ` ${key}`}.${relation} was not loaded: load it with { with: { ${relation}: true } } or em.populate(entities, { ${relation}: true }).`,
      { table },
    )
  },

  /** `countOf` of a relation no read counted for this entity. */
  notCounted(table: string, relation: string, key: string | null): PipeflushError {
    return new PipeflushError(
      'NOT_LOADED',
      `${table}${key === null ? '' : ` ${key}`}.${relation} was not counted: count it with { with: { $count: ['${relation}'] } }.`,
      { table },
    )
  },

  /**
   * `load` found no row of `table` with key `key` (`shown`: how the message shows it; `removed`: this
   * unit of work removed it).
   */
  notFound(table: string, key: unknown, shown: string, removed = false): PipeflushError {
    const message = removed
      ? `${table} ${shown} is removed in this unit of work.`
      : `No ${table} with key ${shown}.`
    return new PipeflushError('NOT_FOUND', message, { table, keys: [key] })
  },

  /** `populate` of an entity that is not stored (new, removed or detached): nothing to read for it. */
  notPopulatable(table: string, status: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `populate: ${withArticle(status)} ${table} entity has no stored relations to load (only managed entities do).`,
      { table },
    )
  },

  /** `table.column` refers to an entity of another entity manager. */
  entityOfAnotherManager(table: string, column: string, target: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} refers to ${withArticle(target)} entity of another entity manager.`,
      { table, column },
    )
  },

  /** `table.column` refers to an entity whose status forbids it (removed...). */
  refersToEntityIn(table: string, column: string, target: string, status: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} refers to ${withArticle(target)} entity that is ${status}.`,
      {
        table,
        column,
      },
    )
  },

  /** An entity of `target` assigned to a column that references other tables (`targets`). */
  wrongReferenceTarget(table: string, column: string, targets: string, target: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column} references ${targets}, not ${target}: ${withArticle(target)} entity cannot stand for it.`,
      { table, column },
    )
  },

  /** An entity with a composite key assigned to one column. */
  entityForCompositeColumn(table: string, column: string, target: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column}: ${withArticle(target)} entity cannot stand for one column (composite key); assign the key values.`,
      { table, column },
    )
  },

  /** `Object.freeze` or `seal` of an entity. */
  entityFrozen(table: string): PipeflushError {
    return new PipeflushError('INVALID_STATE', `A ${table} entity cannot be frozen or sealed.`, { table })
  },

  /** An assignment to an entity whose status forbids it. */
  assignToEntityIn(table: string, column: string, status: string): PipeflushError {
    return new PipeflushError('INVALID_STATE', `Cannot assign ${table}.${column}: the entity is ${status}.`, {
      table,
      column,
    })
  },

  /** `remove` of an entity the unit of work no longer tracks: nothing it could delete. */
  removeDetached(table: string, shownKey: string | undefined): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `Cannot remove this ${table}${shownKey === undefined ? '' : ` (key ${shownKey})`}: the entity is detached, no longer tracked by this unit of work (forgotten by clear(), deleted by an earlier flush, removed before it was inserted, or replaced by a later upsert of its row), so a flush would delete nothing. Load the row again to remove it.`,
      { table },
    )
  },

  /** A change of a stored row's primary key. */
  storedKeyChanged(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `Cannot change primary key column ${table}.${column} of a stored row; remove it and create a new one.`,
      { table, column },
    )
  },

  /**
   * A change of a column a stored row's primary key is generated from: the row's key would change
   * with it, as {@link storedKeyChanged} refuses.
   */
  keyInputChanged(table: string, column: string, keyColumn: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `Cannot change ${table}.${column} of a stored row: primary key column ${table}.${keyColumn} is generated from it, so the row's key would change; remove the row and create a new one.`,
      { table, column },
    )
  },

  /** An assignment to the version column. */
  versionAssigned(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} is the version column: pipeflush increments it on every update.`,
      { table, column },
    )
  },

  /** `delete entity.prop`. */
  propertyDeleted(table: string, prop: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `Cannot delete property ${prop} of ${withArticle(table)} entity; assign null instead.`,
      { table },
    )
  },

  /** `Object.defineProperty` on an entity. */
  propertyDefined(table: string, prop: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `Cannot define property ${prop} on ${withArticle(table)} entity.`,
      {
        table,
      },
    )
  },

  /** A key of a single-column key that is no key (`shown`: the value given). */
  keyNeeded(table: string, column: string, shown: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `A key of ${table} is needed, not ${shown}.`, {
      table,
      column,
    })
  },

  /** A single value given for a composite key. */
  compositeKeyNeeded(table: string, keyColumns: readonly string[], shown: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table} has a composite primary key (${keyColumns.join(', ')}): pass an object of them, not ${shown}.`,
      { table },
    )
  },

  /** A key object lacking one of its columns. */
  keyColumnLacking(table: string, column: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `The key of ${table} lacks its column "${column}".`, {
      table,
      column,
    })
  },

  /** A stored row given without its whole primary key. */
  storedKeyMissing(table: string, keyColumns: readonly string[]): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `A stored ${table} row needs its primary key (${keyColumns.join(', ')}).`,
      { table },
    )
  },

  /**
   * A stored row (read or merged) whose key value, as the application holds it, cannot be a key (an
   * int8 key read as a JS number past 2^53 by a column's mapping): its entity could not find its row
   * again.
   */
  storedKeyUnfit(table: string, column: string, shown: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `A stored ${table} row's key ${column} is ${shown} as the application reads it, which cannot identify ` +
        'its row exactly: read the column in a form that holds every stored key (an int8 as a string or ' +
        "a bigint; with Drizzle, bigint({ mode: 'bigint' }), not { mode: 'number' }).",
      { table, column },
    )
  },

  /** A row whose key is already managed by the entity manager (`shown`: the key as messages show it). */
  alreadyManaged(table: string, shown: string, key: unknown): PipeflushError {
    return new PipeflushError(
      'DUPLICATE_KEY',
      `A ${table} with key ${shown} is already managed by this entity manager.`,
      { table, keys: [key] },
    )
  },

  /** An entity of another entity manager, or no entity. */
  notThisManager(): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      'Not an entity of this entity manager (create, find or load it with this one).',
    )
  },
}
