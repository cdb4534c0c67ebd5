import { randomBytes } from 'node:crypto'

/**
 * A new slug for an article titled `title`: the title in lowercase ASCII words joined by `-`, and a
 * random suffix, so that articles of the same title get different slugs without a read (the unique
 * constraint on `article.slug` stands behind it).
 *
 * @example
 * slugOf('How to train your dragon') // 'how-to-train-your-dragon-5f0c9a1e'
 */
export function slugOf(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '')
  return `${words || 'article'}-${randomBytes(4).toString('hex')}`
}
