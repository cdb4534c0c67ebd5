/**
 * JSON text parsed only where the value is exactly what the text says: every number of the text the
 * JavaScript number it parses to (`12345678901234567891` and `0.10000000000000000000001` are not,
 * `1.0`, `1e2` and `0.1` are), and the text not the JSON `null` at its top (pipeflush writes a JS
 * `null` as SQL NULL). Otherwise the reason, without the text (an error message must not quote a
 * value).
 *
 * @example
 * jsonValueOf('{"theme":"dark"}') // { value: { theme: 'dark' } }
 * jsonValueOf('[12345678901234567891]') // { problem: 'a number in it has more digits than ...' }
 */
export function jsonValueOf(text: string): { readonly value: unknown } | { readonly problem: string } {
  let inexact = false
  let value: unknown
  try {
    // The reviver's third argument (Node 21 and later) holds the source text of each primitive.
    value = JSON.parse(text, ((_key: string, v: unknown, context?: { source?: string }) => {
      if (typeof v === 'number' && context?.source !== undefined && !sameNumber(context.source, v))
        inexact = true
      return v
    }) as (key: string, v: unknown) => unknown)
  } catch {
    // The reviver's recursion runs out of stack on text nested some thousands deep, which JSON.parse
    // alone reads: such a value goes on as it is (core refuses JSON nested that deep, saying so).
    try {
      return { value: JSON.parse(text) }
    } catch {
      return { problem: 'this one is not JSON' }
    }
  }
  if (inexact)
    return {
      problem:
        'a number in it has more digits than a JavaScript number keeps (or is out of its range), and would be stored changed: keep such a number as a string in the JSON, or write the row with Kysely itself',
    }
  if (value === null)
    return {
      problem:
        'this one is the JSON null, which pipeflush does not write at the top of a column (a JS null is SQL NULL): give null for NULL',
    }
  return { value }
}

/** Whether the decimal `source` (a JSON number) is the number `n`, as JSON writes it back. */
function sameNumber(source: string, n: number): boolean {
  if (!Number.isFinite(n)) return false
  const a = canonical(source)
  return a !== undefined && a === canonical(String(n))
}

/**
 * A decimal's digits without leading or trailing zeros and its exponent (`1.50e1` and `15` are both
 * `15e0`, any zero `0`), its sign first; undefined for a text that is no decimal.
 */
function canonical(decimal: string): string | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(decimal)
  if (m === null) return undefined
  const fraction = m[3] ?? ''
  let digits = (m[2]! + fraction).replace(/^0+/, '')
  if (digits === '') return '0'
  let exponent = Number(m[4] ?? 0) - fraction.length
  const trailing = /0+$/.exec(digits)
  if (trailing !== null) {
    digits = digits.slice(0, trailing.index)
    exponent += trailing[0].length
  }
  return `${m[1]}${digits}e${exponent}`
}
