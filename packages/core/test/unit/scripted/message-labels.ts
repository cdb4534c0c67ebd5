import type { PlannedStatement } from '@pipeflush/core'
import { normalizeSql, type ReceivedMessage } from '@pipeflush/testkit'

/**
 * A short name for a statement of the tests' schema: `begin`, `insert author`, `update author`,
 * `delete book`, `select author`, `select author for update`, `insert pipeflush_flush_log`, `fetch ids`,
 * `copy author`;
 * else its first 40 characters.
 *
 * @example
 * statementLabel('insert into "public"."author" ("id", "name") values ($1::text::uuid, $2::text::text)') // 'insert author'
 */
export function statementLabel(text: string): string {
  const t = normalizeSql(text).toLowerCase()
  if (/^(begin|commit|rollback)$/.test(t)) return t
  if (/nextval\(s\.r\)/.test(t)) return 'fetch ids'
  const copy = /^copy "public"\."(\w+)" .* from stdin$/.exec(t)
  if (copy) return `copy ${copy[1]}`
  const write = /^(?:with w as \()?(insert into|update|delete from) (?:"public"\.)?"(\w+)"/.exec(t)
  if (write) return `${write[1]!.split(' ')[0]} ${write[2]}`
  const read = /^select .* from "public"\."(\w+)" as t0? .*?( for update| for share)?$/.exec(t)
  if (read) return `select ${read[1]}${read[2] ?? ''}`
  return t.slice(0, 40)
}

/**
 * A message as a short line: `Q <statements>` for a Query, `P <statement>`, `B <statement>`, `D P`,
 * `E <statement>`, `S` for the extended protocol, else its type.
 *
 * @example
 * messageLabel(queryOfBeginAndInsert) // 'Q begin; insert author'
 */
export function messageLabel(m: ReceivedMessage): string {
  const message = m.message
  switch (message.type) {
    case 'Query':
      return `Q ${(m.statements ?? []).map(statementLabel).join('; ')}`
    case 'Parse':
      return `P ${statementLabel(message.text)}`
    case 'Bind':
      return `B ${statementLabel(m.text ?? '?')}`
    case 'Describe':
      return `D ${message.target}`
    case 'Execute':
      return `E ${statementLabel(m.text ?? '?')}`
    case 'Sync':
      return 'S'
    default:
      return message.type
  }
}

/**
 * The labels of `messages` (see {@link messageLabel}), one array per round trip.
 *
 * @example
 * byRoundTrip(server.log.messages) // [['Q begin'], ['Q insert author'], ['Q commit']]
 */
export function byRoundTrip(messages: readonly ReceivedMessage[]): string[][] {
  const out: string[][] = []
  let last: number | undefined
  for (const m of messages) {
    if (m.roundTrip !== last) out.push([])
    last = m.roundTrip
    out[out.length - 1]!.push(messageLabel(m))
  }
  return out
}

/**
 * The messages node-postgres writes for one pipelined statement: Parse (the first time the connection
 * sees its name, or always when unnamed), Bind, Describe, Execute, Sync.
 */
export function extended(label: string, parsed: boolean): string[] {
  return [...(parsed ? [`P ${label}`] : []), `B ${label}`, 'D P', `E ${label}`, 'S']
}

/** The label of a planned statement. */
export function plannedLabel(s: PlannedStatement): string {
  return `${s.kind} ${s.table}`
}
