/** Column alignment of a table. */
export type Align = 'left' | 'right'

/**
 * A plain-text table with aligned columns, for the terminal.
 *
 * @example
 * textTable(['series', 'ms'], [['raw', '3.1']], ['left', 'right'])
 */
export function textTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (align[i] === 'right' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

/** A GitHub-flavoured markdown table. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const esc = (s: string) => s.replaceAll('|', '\\|')
  return [
    `| ${headers.map(esc).join(' | ')} |`,
    `|${headers.map((_, i) => (align[i] === 'right' ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n')
}

/** Milliseconds with 2 significant decimals below 10, 1 below 100, none above; `-` for null. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-'
  if (value < 10) return value.toFixed(2)
  if (value < 100) return value.toFixed(1)
  return value.toFixed(0)
}

/** A count or ratio with at most `digits` decimals, trailing zeros dropped; `-` for null. */
export function num(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-'
  return String(Number(value.toFixed(digits)))
}

/** `12.3x`, or `-`. */
export function times(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '-' : `${value.toFixed(1)}x`
}

/** `1.33x` (two decimals, for ratios compared with a limit), or `-`. */
export function ratio(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '-' : `${value.toFixed(2)}x`
}

/** `1 row` / `10 rows`. */
export function rowsLabel(rows: number): string {
  return rows === 1 ? '1 row' : `${rows.toLocaleString('en-US')} rows`
}

/** `85 s` / `2 min 05 s`. */
export function duration(seconds: number): string {
  if (seconds < 90) return `${seconds.toFixed(0)} s`
  const m = Math.floor(seconds / 60)
  return `${m} min ${String(Math.round(seconds - m * 60)).padStart(2, '0')} s`
}
