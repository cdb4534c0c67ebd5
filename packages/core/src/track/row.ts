/**
 * An empty row: an object without prototype, so that a column named `__proto__` (or `constructor`)
 * is an ordinary property. Entities still look like plain objects (see `entity-proxy.ts`).
 */
export function emptyRow(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>
}
