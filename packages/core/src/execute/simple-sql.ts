import type { PlannedStatement } from '../plan/types.ts'
import { quoteTextArrayLiteral } from '../values/index.ts'

/**
 * A planned statement with its parameters written as literals, for the simple query protocol (no
 * parse/describe step, so statements never prepared on a connection cost no extra round trip).
 * Only `$n` outside quoted identifiers and string literals are replaced; each parameter becomes a
 * quoted `text[]` literal. Requires `standard_conforming_strings = on` (the default since 9.1).
 *
 * @example
 * inlineParams({ sql: 'select $1::text[]', params: [['a']] }) // `select '{"a"}'::text[]::text[]`
 */
export function inlineParams(statement: Pick<PlannedStatement, 'sql' | 'params'>): string {
  const { sql, params } = statement
  let out = ''
  let i = 0
  while (i < sql.length) {
    const ch = sql[i]
    if (ch === '"' || ch === "'") {
      const end = closingQuote(sql, i, ch)
      out += sql.slice(i, end + 1)
      i = end + 1
    } else if (ch === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      let j = i + 1
      while (/[0-9]/.test(sql[j] ?? '')) j++
      const n = Number(sql.slice(i + 1, j))
      const param = params[n - 1]
      if (param === undefined)
        throw new Error(`inlineParams: statement has $${n} but only ${params.length} parameters`)
      out += quoteTextArrayLiteral(param)
      i = j
    } else {
      out += ch
      i++
    }
  }
  return out
}

function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2
        continue
      }
      return i
    }
    i++
  }
  return sql.length - 1
}
