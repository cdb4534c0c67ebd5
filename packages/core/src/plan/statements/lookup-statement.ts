import { errors } from '../../errors.ts'
import type { StatementDraft } from '../draft.ts'
import { insertSql } from '../sql/insert-sql.ts'
import { type LookupSql, lookupsId } from '../sql/lookup-sql.ts'
import { returnedList } from '../sql/returning-sql.ts'
import { updateSql } from '../sql/update-sql.ts'
import { onConflictSql } from '../sql/upsert-sql.ts'
import type { PlannedStatement } from '../types.ts'
import { type ServerValuesPolicy, statementReturning } from './returning.ts'
import { ShapeCache } from './shape-cache.ts'
import { statementForm } from './statement-sql.ts'

/** The texts of statements with lookups, per table, by their text without them and the lookups. */
const texts = new ShapeCache<string>()

/**
 * The statement of an insert (an upsert's too) or update draft some of whose rows reference rows
 * upserted by the same flush (`draft.lookups`, see `conflict-ref.ts`): `base`, the statement as built
 * without the lookups,
 * with the SQL that takes those columns by the upserts' conflict keys and returns what `base` would
 * return. Never sent as COPY: COPY has no expressions. `INVALID_VALUE` when the upserted table's
 * rows are not read back (`policy`): the referencing entity could not learn its key.
 *
 * A reference to an upserted row then costs no read first: the server finds the row in the same statement.
 */
export function lookupStatement(
  draft: StatementDraft,
  base: PlannedStatement,
  policy: ServerValuesPolicy | undefined,
): PlannedStatement {
  const { table, kind, fixup } = draft
  const lookups = draft.lookups!
  for (const lookup of lookups) {
    // Its upsert returns nothing: the key the row took could not be known after the flush.
    if (policy !== undefined && !policy(lookup.target))
      throw errors.upsertReferenceInvalid(
        table.key,
        lookup.column,
        lookup.target.key,
        `serverValues is off for "${lookup.target.key}", so its upserts return nothing; turn it on for that table.`,
      )
  }
  const returning = statementReturning(table, base, policy)?.returning ?? []
  const form = statementForm(base)
  const id = `${base.sql}\u0001${returning.join('\u0000')}\u0001${lookupsId(lookups)}`
  const upsert = base.upsert
  const sql = texts.get(table, id, () =>
    kind !== 'insert'
      ? updateSql(table, base.columns, fixup, returning, form, lookups)
      : upsert === undefined
        ? insertSql(table, base.columns, returning, form, lookups)
        : // An upsert keeps its conflict clause, its returning after it.
          insertSql(table, base.columns, [], form, lookups) +
          onConflictSql(upsert, returning.length > 0, table) +
          (returning.length > 0 ? ` returning ${returnedList(table, returning)}` : ''),
  )
  const described = lookups.map((l) => ({ column: l.column, table: l.target.key, conflict: l.conflict }))
  return {
    ...base,
    keys: keysWithLookups(table, base, lookups),
    sql,
    lookups: described,
    ...(returning.length > 0 ? { returning } : {}),
  }
}

/**
 * The rows' keys (`base.keys`, in the order sent), where a key column takes a lookup: that part of a
 * row referencing an upserted row is unknown (null, as a key the server fills), since the server finds
 * the row by its conflict values, which may hold another key than the id the flush proposed for the
 * upserted entity. An error naming the rows' keys then names no row that does not exist.
 */
function keysWithLookups(
  table: StatementDraft['table'],
  base: PlannedStatement,
  lookups: readonly LookupSql[],
): readonly unknown[] {
  const key = table.primaryKey
  if (!lookups.some((l) => key.includes(l.column))) return base.keys
  const keys = base.keys.slice()
  // Each lookup's conflict values are the last parameters, in the lookups' order: NULL for a row
  // that references no upsert through its column.
  let at = base.params.length
  for (const l of lookups) at -= l.conflict.length
  for (const l of lookups) {
    const conflict = base.params[at]!
    at += l.conflict.length
    const part = key.indexOf(l.column)
    if (part < 0) continue
    for (let r = 0; r < keys.length; r++) {
      if (conflict[r] === null) continue
      const was = keys[r]
      keys[r] = key.length === 1 ? null : (was as readonly unknown[]).map((v, i) => (i === part ? null : v))
    }
  }
  return keys
}
