/**
 * `name` after its indefinite article, for messages naming a table or a kind of row: `an order`,
 * `an author`, `a book`, `a user` (a name starting with a, e, i or o takes `an`; `u` mostly sounds
 * as in `user`, and takes `a`).
 *
 * @example
 * withArticle('order') // 'an order'
 * withArticle('book') // 'a book'
 */
export function withArticle(name: string): string {
  return `${/^[aeio]/i.test(name) ? 'an' : 'a'} ${name}`
}
