/** A double-quoted SQL identifier, `"` doubled inside. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
