/**
 * Rows are instances of a class whose prototype is an empty object without prototype: nothing is
 * inherited, so a column named `__proto__` (or `constructor`) is an ordinary own property, and unlike
 * `Object.create(null)` objects (which V8 keeps as hash tables) they stay fast-mode objects.
 */
// biome-ignore lint/complexity/useArrowFunction: a constructor
const Row = function Row() {} as unknown as new () => Record<string, unknown>
Row.prototype = Object.create(null) as object

/**
 * An empty row: an object that inherits nothing, so that a column named `__proto__` (or
 * `constructor`) is an ordinary property. Entities still look like plain objects (see
 * `entity-proxy.ts`).
 */
export function emptyRow(): Record<string, unknown> {
  return new Row()
}

/** A copy of `values` as a row without prototype (a column may be named `__proto__`). */
export function rowOf(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const row = emptyRow()
  for (const name of Object.keys(values)) row[name] = values[name]
  return row
}
