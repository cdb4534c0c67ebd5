/**
 * Whether `value` inherits no property at all: every object on its prototype chain has no own
 * property. Rows are such objects (see `src/track/row.ts`), so that a column named `__proto__`,
 * `constructor` or `toString` is an ordinary own property.
 *
 * @example
 * expect(inheritsNothing(emptyRow())).toBe(true)
 */
export function inheritsNothing(value: object): boolean {
  for (let proto = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if (Reflect.ownKeys(proto).length > 0) return false
  }
  return true
}
