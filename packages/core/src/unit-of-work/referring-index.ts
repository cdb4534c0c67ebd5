import type { TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { type EntityState, type EntityStatus, stateOf } from '../track/entity-state.ts'
import { normalizeKeyValue, type ValueLocation } from '../values/index.ts'
import type { CreatedList } from './created-list.ts'
import type { IdentityMap } from './identity-map.ts'
import type { UnitOfWorkState } from './state.ts'

/**
 * The entities of one table that a unit of work holds (managed and new, as `UnitOfWork.statesOf`
 * gives them), grouped by what their `columns` hold: the text of their values (see
 * {@link canonicalText}), or, for one column holding an entity, that entity. Reading a relation of
 * every one of a thousand authors looks its books up here, each in its group, where a scan of every
 * book for every author read ten million rows.
 *
 * Made again when it is read after anything it was made from changed: an entity mapped, created,
 * forgotten (the identity map's and the new entities' {@link IdentityMap.version} and
 * {@link CreatedList.version}), an entity's status, or a value in `columns` (compared one by one,
 * without a text made: an assignment, an id given by a flush, a value the server filled). That check
 * is skipped when nothing could have changed them: no edit (an assignment, a creation, a removal), no
 * flush begun or ended, since it was last made or checked (see `UnitOfWork.beginFlush`).
 *
 * @example
 * const books = new ReferringIndex(uowState, bookTable, ['author_id'])
 * books.referring(author, canonicalText(authorTable, ['id'], author.row)) // the author's books, in order
 */
export class ReferringIndex {
  readonly #uow: Pick<UnitOfWorkState, 'map' | 'created' | 'edits' | 'flushing' | 'flushed'>
  readonly #map: IdentityMap
  readonly #created: CreatedList
  readonly #table: TableModel
  readonly #columns: readonly string[]
  /** The versions it was made at; -1: never made. */
  #mapVersion = -1
  #createdVersion = -1
  /** The unit of work's edits and ended flushes when it was last made or checked; -1: check next time. */
  #edits = -1
  #flushed = -1
  /**
   * Every entity of the table it saw, taken or not, the status each had and the values of its
   * columns (row after row).
   */
  #seen: EntityState[] = []
  #statuses: EntityStatus[] = []
  #values: unknown[] = []
  /** The entities taken (managed or new), in order, and each one's place (made when first needed). */
  #taken: EntityState[] = []
  #rank: Map<EntityState, number> | undefined
  #byText = new Map<string, EntityState[]>()
  #byEntity = new Map<EntityState, EntityState[]>()

  constructor(
    uow: Pick<UnitOfWorkState, 'map' | 'created' | 'edits' | 'flushing' | 'flushed'>,
    table: TableModel,
    columns: readonly string[],
  ) {
    this.#uow = uow
    this.#map = uow.map
    this.#created = uow.created
    this.#table = table
    this.#columns = columns
  }

  /**
   * The entities whose columns refer to `state`: hold it (one column), or hold values whose text is
   * `text` (null: none by text), in the order of `UnitOfWork.statesOf`. A new array.
   */
  referring(state: EntityState, text: string | null): EntityState[] {
    this.#fresh()
    const byEntity = this.#columns.length === 1 ? this.#byEntity.get(state) : undefined
    const byText = text === null ? undefined : this.#byText.get(text)
    if (byEntity === undefined) return byText === undefined ? [] : byText.slice()
    if (byText === undefined) return byEntity.slice()
    // Both (some rows hold the entity, others its key): merged back into their order.
    this.#rank ??= new Map(this.#taken.map((s, i) => [s, i]))
    const rank = this.#rank
    return [...byEntity, ...byText].sort((a, b) => rank.get(a)! - rank.get(b)!)
  }

  /** The first entity (in the order of `UnitOfWork.statesOf`) whose columns' values have the text `text`. */
  firstWithText(text: string): EntityState | undefined {
    this.#fresh()
    return this.#byText.get(text)?.[0]
  }

  /** Made again when something it was made from changed. */
  #fresh(): void {
    const uow = this.#uow
    const quiet = uow.flushing === 0
    if (quiet && uow.edits === this.#edits && uow.flushed === this.#flushed && this.#sameVersions()) return
    if (!this.#unchanged()) this.#make()
    // While a flush is under way its writes are not counted: checked in full at every read.
    this.#edits = quiet ? uow.edits : -1
    this.#flushed = uow.flushed
  }

  #sameVersions(): boolean {
    return this.#map.version === this.#mapVersion && this.#created.version === this.#createdVersion
  }

  #unchanged(): boolean {
    if (!this.#sameVersions()) return false
    // One pass over what it saw: each entity's status and values as they were.
    const seen = this.#seen
    const statuses = this.#statuses
    const values = this.#values
    const columns = this.#columns
    if (columns.length === 1) {
      const column = columns[0]!
      for (let i = 0; i < seen.length; i++) {
        const s = seen[i]!
        if (s.status !== statuses[i] || !Object.is(s.row[column], values[i])) return false
      }
      return true
    }
    const n = columns.length
    for (let i = 0; i < seen.length; i++) {
      const s = seen[i]!
      if (s.status !== statuses[i]) return false
      for (let c = 0; c < n; c++) if (!Object.is(s.row[columns[c]!], values[i * n + c])) return false
    }
    return true
  }

  /** Made from the unit of work's entities as they are (kept only once made whole: a text may throw). */
  #make(): void {
    const table = this.#table
    const columns = this.#columns
    const seen: EntityState[] = []
    const statuses: EntityStatus[] = []
    const taken: EntityState[] = []
    const values: unknown[] = []
    const byText = new Map<string, EntityState[]>()
    const byEntity = new Map<EntityState, EntityState[]>()
    const mapVersion = this.#map.version
    const createdVersion = this.#created.version
    const see = (s: EntityState): void => {
      seen.push(s)
      statuses.push(s.status)
      for (let c = 0; c < columns.length; c++) values.push(s.row[columns[c]!])
    }
    const take = (s: EntityState): void => {
      taken.push(s)
      const entity = columns.length === 1 ? stateOf(s.row[columns[0]!]) : undefined
      if (entity !== undefined) {
        add(byEntity, entity, s)
        return
      }
      const text = canonicalText(table, columns, s.row)
      if (text !== null) add(byText, text, s)
    }
    for (const s of this.#map.ofTable(table.key)) {
      see(s)
      if (s.status === 'managed') take(s)
    }
    for (const s of this.#created) {
      if (s.table.key !== table.key) continue
      see(s)
      if (s.status === 'new') take(s)
    }
    this.#seen = seen
    this.#statuses = statuses
    this.#values = values
    this.#taken = taken
    this.#rank = undefined
    this.#byText = byText
    this.#byEntity = byEntity
    this.#mapVersion = mapVersion
    this.#createdVersion = createdVersion
  }
}

function add<K>(groups: Map<K, EntityState[]>, key: K, state: EntityState): void {
  const group = groups.get(key)
  if (group === undefined) groups.set(key, [state])
  else group.push(state)
}

/** Where a key value is normalized for a comparison: its table (one object per table). */
export const keyLocation = perTable((table): ValueLocation => ({ table: table.key }))

/**
 * The values of `columns` of `row` as one text, to compare with the text of as many columns of
 * another row (a reference with what it refers to): each value's key text (see `normalizeKeyValue`),
 * one column's as it is, several as a JSON array. Null when a value is missing or an entity.
 *
 * @example
 * canonicalText(bookTable, ['author_id'], { author_id: 7n }) // '7'
 */
export function canonicalText(
  table: TableModel,
  columns: readonly string[],
  row: Readonly<Record<string, unknown>>,
): string | null {
  if (columns.length === 1) {
    const v = row[columns[0]!]
    if (v === null || v === undefined || stateOf(v) !== undefined) return null
    return normalizeKeyValue(v, table.columnsByName.get(columns[0]!)!, keyLocation(table))
  }
  const parts: string[] = []
  for (const c of columns) {
    const v = row[c]
    if (v === null || v === undefined || stateOf(v) !== undefined) return null
    parts.push(normalizeKeyValue(v, table.columnsByName.get(c)!, keyLocation(table)))
  }
  return JSON.stringify(parts)
}
