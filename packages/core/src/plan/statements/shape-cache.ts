import type { TableModel } from '../../model/model.ts'
import { perTable } from '../../schema/per-table.ts'

/** Tables whose shapes a cache keeps at most; past this many it starts afresh. */
const MAX_TABLES = 1_024
/** Shapes kept per table at most; past this many the table's start afresh. */
const MAX_SHAPES_PER_TABLE = 256

/**
 * Everything a table model says, as one string: two models with the same fingerprint describe the
 * same table the same way, so what is derived from one (an SQL text) holds for the other.
 */
const fingerprintOf = perTable((table): string => {
  const { columnsByName: _derived, ...definition } = table
  return JSON.stringify(definition)
})

/**
 * A cache of values derived from a table and a statement shape (an SQL text, say), shared by every
 * model of the same table: entity managers connected one after the other (each reads its own schema
 * model) build each shape's text once per process instead of once per connection.
 */
export class ShapeCache<V> {
  /** Per table model, its shapes (found through the fingerprint once per model). */
  readonly #byModel = new WeakMap<TableModel, Map<string, V>>()
  readonly #byFingerprint = new Map<string, Map<string, V>>()

  /** The value of `shape` for `table`, made by `make` the first time. */
  get(table: TableModel, shape: string, make: () => V): V {
    return this.find(table, shape) ?? this.keep(table, shape, make())
  }

  /**
   * The value of `shape` for `table` if kept: with {@link keep}, {@link get} without a function made
   * per call (a flush asks once per statement).
   */
  find(table: TableModel, shape: string): V | undefined {
    return this.#shapesOf(table).get(shape)
  }

  /** Keeps `value` as the value of `shape` for `table`, and answers it. */
  keep(table: TableModel, shape: string, value: V): V {
    const shapes = this.#shapesOf(table)
    if (shapes.size >= MAX_SHAPES_PER_TABLE) shapes.clear()
    shapes.set(shape, value)
    return value
  }

  #shapesOf(table: TableModel): Map<string, V> {
    let shapes = this.#byModel.get(table)
    if (shapes === undefined) {
      const fingerprint = fingerprintOf(table)
      shapes = this.#byFingerprint.get(fingerprint)
      if (shapes === undefined) {
        if (this.#byFingerprint.size >= MAX_TABLES) this.#byFingerprint.clear()
        shapes = new Map()
        this.#byFingerprint.set(fingerprint, shapes)
      }
      this.#byModel.set(table, shapes)
    }
    return shapes
  }
}
