import { createHash } from 'node:crypto'

const names = new Map<string, string>()
const MAX_NAMES = 10_000

/**
 * The prepared-statement name of a statement text: `pf_` and a hash of the text, the same in every
 * process, so a connection prepares each text once under one name. Flushes and reads name their
 * statements alike.
 *
 * @example
 * statementName('select 1') // 'pf_' and 22 characters, the same for the same text
 */
export function statementName(text: string): string {
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear()
    name = `pf_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`
    names.set(text, name)
  }
  return name
}
