import pluralize from 'pluralize'

/**
 * A table name in the plural: its last word (after the last `_`, or the last capitalized part of a
 * camelCase name) put in the plural by the `pluralize` package's English rules, the rest kept, case
 * kept. A word already plural stays as it is (`people`, `news`, `series`, `users`, `categories`).
 *
 * @example
 * plural('category') // 'categories'
 * plural('order_person') // 'order_people'
 * plural('threadStat') // 'threadStats'
 * plural('people') // 'people'
 */
export function plural(name: string): string {
  const last = /(?:[A-Z]?[a-z]+|[A-Z]+)$/.exec(name)
  if (last === null) return pluralize.plural(name)
  return name.slice(0, last.index) + pluralize.plural(last[0])
}
