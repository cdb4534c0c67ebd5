/**
 * Prices are `numeric(8, 2)`, which pipeflush reads as exact decimal strings: compute in cents.
 *
 * @example
 * discounted('12.50', 10) // '11.25'
 */
export function discounted(price: string, percent: number): string {
  const cents = Math.round(Number(price) * 100)
  const after = Math.round((cents * (100 - percent)) / 100)
  return `${Math.trunc(after / 100)}.${String(after % 100).padStart(2, '0')}`
}
