const AMOUNT = /^(-?)(\d+)(?:\.(\d{1,2}))?$/

/**
 * Cents of a `numeric(15, 2)` amount as pipeflush reads it (an exact decimal string).
 *
 * @example
 * cents('12.5') // 1250n
 */
export function cents(amount: string): bigint {
  const m = AMOUNT.exec(amount)
  if (!m) throw new Error(`not an amount: ${amount}`)
  const value = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'))
  return m[1] === '-' ? -value : value
}

/**
 * The decimal string of `value` cents.
 *
 * @example
 * amount(1250n) // '12.50'
 */
export function amount(value: bigint): string {
  const sign = value < 0n ? '-' : ''
  const abs = value < 0n ? -value : value
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`
}
