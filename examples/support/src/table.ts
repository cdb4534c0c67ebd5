const NUMERIC = /^-?[\d.,]+(-[\d.,]+)?( ?[a-zµ%×]+)?$/

/**
 * Formats rows as an aligned text table: numbers (and numeric strings, units allowed) right-aligned,
 * the rest left-aligned.
 *
 * @example
 * console.log(formatTable(['mode', 'round trips'], [['burst', 1], ['off', 7]]))
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  const cells = [header, ...rows.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  const line = (r: readonly (string | number)[]) =>
    r
      .map((c, i) =>
        NUMERIC.test(String(c)) ? String(c).padStart(widths[i]!) : String(c).padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}
