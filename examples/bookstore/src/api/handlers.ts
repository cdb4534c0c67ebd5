import type { FlushReport } from '@pipeflush/core'
import type { UnitOfWorkFactory } from '@pipeflush/example-support'
import { discounted } from '../money.ts'
import { AuthorRepository } from '../repositories/author-repository.ts'
import { BookRepository } from '../repositories/book-repository.ts'
import { PublisherRepository } from '../repositories/publisher-repository.ts'
import { TagRepository } from '../repositories/tag-repository.ts'
import type { BookstoreEm } from '../repositories/types.ts'
import type { DB } from '../schema.ts'
import type { CreateAuthorInput, ReviseAuthorInput } from './inputs.ts'

/** What a handler answers: a status, a JSON body, and what it did (for the console). */
export interface Reply {
  readonly status: number
  readonly body: unknown
}

/** The body of every answer of the API: the result, what the request did, and its flush report. */
export interface ApiBody<R> {
  readonly result: R
  /** One line per thing the request did. */
  readonly did: readonly string[]
  readonly flush: FlushReport
}

type Factory = UnitOfWorkFactory<DB>

/** `1 review`, `2 reviews`. */
function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`
}

function repositories(em: BookstoreEm) {
  return {
    authors: new AuthorRepository(em),
    books: new BookRepository(em),
    publishers: new PublisherRepository(em),
    tags: new TagRepository(em),
  }
}

/**
 * `POST /authors`: the author, their books, the books' reviews and tag links, and the tags and
 * publishers they name, got or created, written by one flush (6 tables) without a read: one round
 * trip. The tags and publishers are upserts by name; the links and books reference them, their ids
 * looked up by name in the flush.
 */
export async function createAuthor(factory: Factory, input: CreateAuthorInput): Promise<Reply> {
  const { result, report } = await factory.run(async (em) => {
    const { authors, books, publishers, tags } = repositories(em)
    const pubs = publishers.getOrCreate(input.books.flatMap((b) => (b.publisher ? [b.publisher] : [])))
    const tagged = tags.getOrCreate(input.books.flatMap((b) => b.tags))
    const author = authors.create(input.name, input.bio ?? null)
    const created = input.books.map((b) =>
      books.create(author, {
        ...b,
        publisher: b.publisher ? pubs.get(b.publisher) : null,
        tags: b.tags.map((t) => tagged.get(t)!),
      }),
    )
    const reviews = input.books.reduce((n, b) => n + b.reviews.length, 0)
    const links = input.books.reduce((n, b) => n + new Set(b.tags).size, 0)
    const did = [
      `created author "${input.name}" with ${count(created.length, 'book')}, ${count(reviews, 'review')}, ${count(links, 'tag link')}`,
      `tags got or created: ${tagged.size}, publishers: ${pubs.size}`,
    ]
    return { author, created, did }
  })
  const body: ApiBody<{ id: number; books: { id: string; isbn: string }[] }> = {
    result: { id: result.author.id, books: result.created.map((b) => ({ id: b.id, isbn: b.isbn })) },
    did: [`author ${result.author.id}: ${result.did[0]}`, ...result.did.slice(1)],
    flush: report,
  }
  return { status: 201, body }
}

/**
 * `PATCH /authors/:id`: edits and deletes across author, book, review, book_tag, tag and publisher
 * in one flush: new bio, discounted prices, low reviews deleted, books retired (with their reviews
 * and tag links), books retagged and moved to another publisher.
 */
export async function reviseAuthor(factory: Factory, id: number, input: ReviseAuthorInput): Promise<Reply> {
  const { result: did, report } = await factory.run(async (em) => {
    const { authors, books, publishers, tags } = repositories(em)
    // One round trip: the author's graph. The tags and publishers named are got or created by the flush.
    const { author, books: list, reviews, links } = await authors.loadGraph(id)
    const tagged = tags.getOrCreate((input.retag ?? []).flatMap((r) => r.tags))
    const pubs = publishers.getOrCreate((input.move ?? []).map((m) => m.publisher))
    const byIsbn = new Map(list.map((b) => [b.isbn, b]))
    const book = (isbn: string) => {
      const found = byIsbn.get(isbn)
      if (!found) throw Object.assign(new Error(`author ${id} has no book ${isbn}`), { status: 404 })
      return found
    }
    const did: string[] = []
    if (input.bio !== undefined) {
      author.bio = input.bio
      did.push('updated the bio')
    }
    if (input.discountPercent !== undefined) {
      for (const b of list) b.price = discounted(b.price, input.discountPercent)
      did.push(`discounted ${list.length} books by ${input.discountPercent}%`)
    }
    if (input.dropReviewsBelow !== undefined) {
      const low = reviews.filter((r) => r.stars < input.dropReviewsBelow!)
      for (const r of low) em.remove(r)
      did.push(`deleted ${count(low.length, 'review')} under ${input.dropReviewsBelow} stars`)
    }
    for (const isbn of input.retire ?? []) {
      const n = books.remove(book(isbn), reviews, links)
      did.push(`retired ${isbn} with ${count(n.reviews, 'review')} and ${count(n.links, 'tag link')}`)
    }
    for (const r of input.retag ?? []) {
      const n = books.retag(
        book(r.isbn),
        r.tags.map((t) => tagged.get(t)!),
        links,
      )
      did.push(`retagged ${r.isbn}: +${n.added} -${n.removed} tag links`)
    }
    for (const m of input.move ?? []) {
      em.assign(book(m.isbn), { publisher_id: pubs.get(m.publisher)! })
      did.push(`moved ${m.isbn} to ${m.publisher}`)
    }
    if (tagged.size + pubs.size > 0) did.push(`tags got or created: ${tagged.size}, publishers: ${pubs.size}`)
    return did
  })
  const body: ApiBody<{ id: number }> = { result: { id }, did, flush: report }
  return { status: 200, body }
}

/** `DELETE /authors/:id`: the author, their books, and the books' reviews and tag links, in one flush. */
export async function deleteAuthor(factory: Factory, id: number): Promise<Reply> {
  const { result: did, report } = await factory.run(async (em) => {
    const { authors, books } = repositories(em)
    const { author, books: list, reviews, links } = await authors.loadGraph(id) // one round trip
    for (const b of list) books.remove(b, reviews, links)
    authors.remove(author)
    return [
      `deleted author ${id} with ${count(list.length, 'book')}, ${count(reviews.length, 'review')}, ${count(links.length, 'tag link')}`,
    ]
  })
  const body: ApiBody<{ id: number }> = { result: { id }, did, flush: report }
  return { status: 200, body }
}

/** `GET /authors/:id`: the author's profile, one Kysely query; nothing to flush. */
export async function getAuthor(factory: Factory, id: number): Promise<Reply> {
  const { result: profile, report } = await factory.run((em) => new AuthorRepository(em).profile(id))
  if (!profile) return { status: 404, body: { error: `no author ${id}` } }
  const did = profile.books.map(
    (b) =>
      `${b.isbn} "${b.title}" ${b.price} (${b.publisher ?? 'no publisher'}) [${b.tags.join(', ')}] ${count(b.reviews, 'review')} ${b.stars ?? '-'}★`,
  )
  const body: ApiBody<typeof profile> = {
    result: profile,
    did: [`${profile.name}: ${profile.bio ?? ''}`, ...did],
    flush: report,
  }
  return { status: 200, body }
}
