import { type Direction, type ReadOptions, relationsOf, type SchemaModel, type With } from '@pipeflush/core'
import type { ColumnName, TableName, TypedEntity, Where } from './types.ts'

/**
 * One relation of a {@link Relations} type: the table it reaches, whether it gives many rows
 * (one-to-many, many-to-many) or one or null (many-to-one, one-to-one), and for a many-to-many the
 * link table it goes through (a `with` tree's `$limit` is then refused: limit the link table's
 * one-to-many instead).
 *
 * @example
 * const tags: RelationType<DB> = { table: 'tag', many: true, through: 'book_tag' }
 */
export interface RelationType<DB> {
  readonly table: TableName<DB>
  readonly many: boolean
  readonly through?: TableName<DB>
}

/**
 * The relations of `DB`'s tables by name, as pipeflush derives them from the foreign keys (Kysely's
 * `DB` carries none): written by {@link relationsTypeSource}, or by hand. The second type argument of
 * `createEntityManagerFactory<DB, R>`: it types `with` trees and `related`.
 *
 * @example
 * interface R {
 *   author: { books: { table: 'book'; many: true } }
 *   book: { author: { table: 'author'; many: false }; reviews: { table: 'review'; many: true } }
 *   tag: { books: { table: 'book'; many: true; through: 'book_tag' } }
 * }
 */
export type Relations<DB> = {
  readonly [T in TableName<DB>]?: { readonly [name: string]: RelationType<DB> }
}

/** No relations known: `with` trees and relation names are not checked. */
export type NoRelations = Record<never, never>

/** The relation names of table `T` in `R`. */
export type RelationName<R, T> = T extends keyof R ? keyof R[T] & string : never

/** The names of `T`'s relations of many rows in `R` (one-to-many, many-to-many): what `$count` counts. */
export type ManyRelationName<R, T> = T extends keyof R
  ? { [K in keyof R[T]]: R[T][K] extends { readonly many: true } ? K : never }[keyof R[T]] & string
  : never

/**
 * A `with` tree from table `T`: each relation of `T` in `R`, `true` or the tree of its table (with
 * what to read of it: {@link RelationTree}), and `$count`: relations of many rows of `T` to count per
 * row (`em.countOf`; a many-to-one is refused, as at run time). Any tree (core's `With`) when `R`
 * knows nothing of `T`.
 *
 * @example
 * const tree: WithTree<DB, R, 'author'> = { books: { reviews: true }, $count: ['books'] }
 */
export type WithTree<DB, R, T> = [T] extends [never]
  ? With
  : T extends keyof R
    ? {
        readonly [K in keyof R[T]]?:
          | true
          | (R[T][K] extends { readonly table: infer U extends TableName<DB>; readonly many: infer M }
              ? RelationTree<DB, R, U, M extends true ? true : false, LimitOf<R[T][K], M>>
              : never)
      } & { readonly $count?: readonly ManyRelationName<R, T>[] | undefined }
    : With

/**
 * Whether a relation's tree takes `$limit`: one of many rows that is not a many-to-many (a link
 * table's rows are limited through its own one-to-many).
 */
type LimitOf<Rel, M> = M extends true ? (Rel extends { readonly through: string } ? false : true) : false

/** An ordering of table `T`'s rows: `{ created_at: 'desc' }`, or several as an array of such. */
export type TypedOrderBy<DB, T extends TableName<DB>> =
  | { readonly [C in ColumnName<DB, T>]?: Direction }
  | readonly { readonly [C in ColumnName<DB, T>]?: Direction }[]

/**
 * The tree of a relation reaching table `U`: its own relations (a {@link WithTree}), and which of its
 * rows to read: `$where` (conditions on `U`'s columns), `$orderBy` (navigation follows it), and for a
 * relation of many rows (`Many`) `$limit` (per parent row; a many-to-one gives one row, and takes
 * none, as at run time; nor does a many-to-many, `Limit` false: limit its link table's one-to-many).
 *
 * @example
 * const reviews: RelationTree<DB, R, 'review'> = { $orderBy: { stars: 'desc' }, $limit: 10, book: true }
 */
export type RelationTree<
  DB,
  R,
  U extends TableName<DB>,
  Many extends boolean = true,
  Limit extends boolean = Many,
> = WithTree<DB, R, U> & {
  readonly $where?: Where<DB, U> | undefined
  readonly $orderBy?: TypedOrderBy<DB, U> | undefined
  readonly $limit?: (Limit extends true ? number : never) | undefined
}

/** Read options (`with`) typed from table `T`. */
export type TypedReadOptions<DB, R, T> = Omit<ReadOptions, 'with'> & {
  readonly with?: WithTree<DB, R, T> | undefined
}

/** Find options typed from table `T`: a read's, and the roots' order, limit and offset. */
export type TypedFindOptions<DB, R, T extends TableName<DB>> = TypedReadOptions<DB, R, T> & {
  readonly orderBy?: TypedOrderBy<DB, T> | undefined
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

/** What relation `K` of table `T` gives: the related entities, or the one (or null). */
export type Related<DB, R, T, K> = T extends keyof R
  ? K extends keyof R[T]
    ? R[T][K] extends { readonly table: infer U extends TableName<DB>; readonly many: infer M }
      ? M extends true
        ? TypedEntity<DB, U>[]
        : TypedEntity<DB, U> | null
      : never
    : never
  : never

/**
 * The TypeScript source of a {@link Relations} type named `name` for `schema` (the entity manager's
 * `schema`): every table's relations as pipeflush derives them from the foreign keys (renamed by
 * `relationNames`). Write it to a file next to Kysely's `DB` and pass it as the factory's second type
 * argument; run it again when the foreign keys change.
 *
 * @example
 * import { writeFile } from 'node:fs/promises'
 * await writeFile('src/db/relations.ts', relationsTypeSource(factory.schema))
 * // then: createEntityManagerFactory<DB, Relations>({ client: pool, db })
 */
export function relationsTypeSource(schema: SchemaModel, name = 'Relations'): string {
  // A name of printable ASCII but ' and \ as it is; any other (a line break, a quote, a backslash)
  // escaped as JSON escapes it, and U+2028 and U+2029, which end a line for TypeScript.
  const literal = (s: string) =>
    /^[\x20-\x7e]*$/.test(s) && !/['\\]/.test(s)
      ? `'${s}'`
      : JSON.stringify(s).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
  const quote = (s: string) => (/^[A-Za-z_$][\w$]*$/.test(s) ? s : literal(s))
  const lines = [
    "// Written by relationsTypeSource() of @pipeflush/kysely from the database's foreign keys.",
    `export interface ${name} {`,
  ]
  for (const table of [...schema.tables.keys()].sort()) {
    const relations = [...relationsOf(schema, table).values()].sort((a, b) => a.name.localeCompare(b.name))
    if (relations.length === 0) continue
    lines.push(`  ${quote(table)}: {`)
    for (const r of relations) {
      const many = r.kind === 'one-to-many' || r.kind === 'many-to-many'
      const through = r.through === undefined ? '' : `; through: ${literal(r.through.table)}`
      lines.push(`    ${quote(r.name)}: { table: ${literal(r.target)}; many: ${many}${through} }`)
    }
    lines.push('  }')
  }
  lines.push('}', '')
  return lines.join('\n')
}
