import { errors } from '../errors.ts'
import { arrayLiteral } from './array-literal.ts'
import { textProblem } from './text.ts'

/** The OID of `text[]`. */
export const TEXT_ARRAY_OID = 1009

/**
 * What types a parameter explicitly, e.g. a postgres.js `sql` (client, reserved connection or
 * transaction), whose `typed(value, oid)` gives a parameter of that type.
 */
export interface TypedParameterFactory<P = unknown> {
  typed(value: string, oid: number): P
}

/**
 * A postgres.js parameter holding already-encoded element texts (null for SQL NULL) as one `text[]`
 * array literal, whose type does not depend on the elements (all null, empty, first element null).
 * postgres.js infers an array's type from its first element and serializes JS arrays only after its
 * `fetch_types` query ran; a string is always sent as type 0 ("unspecified"), so with `$n::text[]` in
 * the SQL the server types it `text[]` and the statement's prepared-cache key (types + text) never
 * changes. Given `sql`, the parameter is typed `text[]` (OID 1009) explicitly instead, which also
 * holds without the cast. Pass it to `sql.unsafe(text, params, { prepare: true })`.
 */
export function textArrayParam(elements: readonly (string | null)[]): string
export function textArrayParam<P>(elements: readonly (string | null)[], sql: TypedParameterFactory<P>): P
export function textArrayParam<P>(
  elements: readonly (string | null)[],
  sql?: TypedParameterFactory<P>,
): string | P {
  const literal = arrayLiteral(elements)
  const why = textProblem(literal)
  if (why !== undefined) throw errors.invalidTextArrayParam(why)
  return sql === undefined ? literal : sql.typed(literal, TEXT_ARRAY_OID)
}
