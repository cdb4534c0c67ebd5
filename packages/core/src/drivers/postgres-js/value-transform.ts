import { errors } from '../../errors.ts'
import { changedText, shownText } from '../text-parsing.ts'
import type { PostgresJsOptions } from './client-types.ts'

/** The text type's oid. */
const TEXT_OID = 25

/**
 * Refuses (`INVALID_CONFIG`) a postgres.js client whose parser for the type text (the `types` option)
 * or `transform.value.from` changes texts: every column pipeflush reads is selected as text (see
 * `text-parsing.ts`), and postgres.js runs both on each. A value transform that leaves texts as they
 * are (one mapping null to undefined) passes.
 *
 * @example
 * checkValueTransform(postgres(url, { transform: { value: { from: (v) => String(v).trim() } } }).options) // throws INVALID_CONFIG
 */
export function checkValueTransform(options: Pick<PostgresJsOptions, 'transform' | 'parsers'>): void {
  const parser = options.parsers?.[TEXT_OID]
  const from = options.transform?.value?.from
  if (typeof parser !== 'function' && typeof from !== 'function') return
  // A column as postgres.js describes one of text to a transform.
  const column = { name: 'c0', table: 0, number: 0, type: TEXT_OID, parser }
  const changed = changedText((text) => {
    const parsed = typeof parser === 'function' ? parser(text) : text
    return typeof from === 'function' ? from(parsed, column) : parsed
  })
  if (changed === undefined) return
  const what =
    typeof from === 'function'
      ? "The postgres.js client's transform.value.from (with its parser for the type text, if any)"
      : "The postgres.js client's parser for the type text (its `types` option)"
  throw errors.textParsed(
    what,
    shownText(changed.from),
    shownText(changed.to),
    "Give EntityManager.connect a client made without it (the application's own queries may keep it on another client).",
  )
}
