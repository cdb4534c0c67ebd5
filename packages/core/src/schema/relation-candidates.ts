import type { ForeignKeyModel, TableModel } from '../model/model.ts'
import { plural } from './plural.ts'

/**
 * A foreign key column without its `_id` (any case) or camelCase `Id`/`ID` ending; undefined for a
 * column without one.
 *
 * @example
 * columnStem('reply_to_id') // 'reply_to'
 * columnStem('threadId') // 'thread'
 * columnStem('publisher') // undefined
 */
export function columnStem(column: string): string | undefined {
  return /^(.+)_id$/i.exec(column)?.[1] ?? /^(.*[a-z0-9])I[dD]$/.exec(column)?.[1]
}

/**
 * What a foreign key says the referenced row is to its row: its column's stem (`reply_to_id`:
 * `reply_to`), or the column itself when it has no `_id` ending (`sender`); for a key over several
 * columns, the referenced table's name, or the key's name when the table has several keys to it.
 *
 * @example
 * roleOf(replyTo, post, false) // 'reply_to' (post.reply_to_id references post)
 */
export function roleOf(fk: ForeignKeyModel, target: TableModel, several: boolean): string {
  if (fk.columns.length === 1) return columnStem(fk.columns[0]!) ?? fk.columns[0]!
  return several ? fk.name : target.name
}

/**
 * The names a foreign key's many-to-one may take, best first: its column's stem (`reply_to`), the
 * referenced table's name when the table has no other key to it (`edition` for a key over two
 * columns), the key's name.
 *
 * @example
 * manyToOneNames(replyTo, post, false) // ['reply_to', 'post', 'post_reply_to_id_fkey']
 */
export function manyToOneNames(fk: ForeignKeyModel, target: TableModel, several: boolean): string[] {
  const stem = fk.columns.length === 1 ? columnStem(fk.columns[0]!) : undefined
  return unique([stem, several ? undefined : target.name, fk.name])
}

/**
 * The names the inverse of `fk` (on the table it references) may take, best first. `word` is the
 * referencing table's name in the plural (one-to-many) or as it is (one-to-one): the word alone when
 * the table references the target by this one key and is not the target itself (`thread.posts`,
 * `thread.thread_stat`); then `<word>_by_<role>` (`post.posts_by_reply_to`,
 * `person.messages_by_sender`); then the same prefixed by the referencing table's schema; then its
 * schema and the key's name.
 *
 * @example
 * inverseNames(post, replyTo, post, false, false, 'reply_to')
 * // ['posts_by_reply_to', 'public_posts_by_reply_to', 'public_post_reply_to_id_fkey']
 */
export function inverseNames(
  table: TableModel,
  fk: ForeignKeyModel,
  target: TableModel,
  several: boolean,
  oneToOne: boolean,
  role: string,
): string[] {
  const word = oneToOne ? table.name : plural(table.name)
  const alone = !several && table.key !== target.key
  return unique([
    alone ? word : undefined,
    `${word}_by_${role}`,
    `${table.schema}_${word}_by_${role}`,
    `${table.schema}_${fk.name}`,
  ])
}

/**
 * The names a many-to-many through `link` may take, best first: the far table's name in the plural
 * (`book.tags`); when that table alone does not tell the relation (a link of a table to itself, or
 * several link tables between the two), the far link column's role in the plural instead
 * (`people.followers` through `follow.follower_id`); then either with `_by_<link table>`, then with
 * `_by_<link schema>_<link table>`.
 *
 * @example
 * manyToManyNames(follow, 'follower', people, true) // ['followers', 'followers_by_follow', ...]
 */
export function manyToManyNames(
  link: TableModel,
  farRole: string,
  far: TableModel,
  ambiguous: boolean,
): string[] {
  const word = plural(ambiguous ? farRole : far.name)
  return unique([word, `${word}_by_${link.name}`, `${word}_by_${link.schema}_${link.name}`])
}

function unique(names: readonly (string | undefined)[]): string[] {
  return [...new Set(names.filter((n): n is string => n !== undefined && n !== ''))]
}
