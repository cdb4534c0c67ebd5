import { type ErrorFields, unprocessable } from '../http/api-error.ts'

/**
 * Checks of request bodies and query strings. Every problem found is reported at once, as the spec's
 * error body (`{ errors: { email: ["can't be blank"] } }`), with status 422.
 */
class Checks {
  readonly #errors: Record<string, string[]> = {}

  add(field: string, message: string): void {
    const messages = this.#errors[field] ?? []
    messages.push(message)
    this.#errors[field] = messages
  }

  /** Whether a check failed so far. */
  get failed(): boolean {
    return Object.keys(this.#errors).length > 0
  }

  /** Throws the 422 when a check failed. */
  done(): void {
    if (Object.keys(this.#errors).length > 0) throw unprocessable(this.#errors as ErrorFields)
  }
}

/** `body[key]` as an object, or a 422 (`body: ['must be an object with "user"']`). */
function wrapped(body: unknown, key: string): Record<string, unknown> {
  const inner = isObject(body) ? body[key] : undefined
  if (!isObject(inner)) throw unprocessable({ body: [`must be a JSON object with "${key}"`] })
  return inner
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A required string: present, a string, not blank. */
function required(checks: Checks, o: Record<string, unknown>, field: string): string {
  const value = o[field]
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    checks.add(field, "can't be blank")
    return ''
  }
  if (typeof value !== 'string') {
    checks.add(field, 'must be a string')
    return ''
  }
  storable(checks, field, value)
  return value
}

/** A surrogate half without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Whether `value` holds only what the database can store as text: no NUL, no lone surrogate (which
 * a driver would silently write as U+FFFD). A slug, a username or a filter from the URL that does not
 * can match no stored row.
 *
 * @example
 * isStorable('a\u0000b') // false
 */
export function isStorable(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value)
}

/**
 * Whether `value` can be stored (see {@link isStorable}). Adds the field's problem otherwise.
 */
function storable(checks: Checks, field: string, value: string): boolean {
  if (isStorable(value)) return true
  checks.add(field, 'holds a character that cannot be stored')
  return false
}

/** An optional string: absent (undefined), or a string not blank unless `blank` allows it. */
function optional(
  checks: Checks,
  o: Record<string, unknown>,
  field: string,
  blank = false,
): string | undefined {
  const value = o[field]
  if (value === undefined) return undefined
  if (typeof value !== 'string') {
    checks.add(field, 'must be a string')
    return undefined
  }
  if (!blank && value.trim() === '') checks.add(field, "can't be blank")
  storable(checks, field, value)
  return value
}

const EMAIL = /^[^\s@]+@[^\s@]+$/

function email(checks: Checks, value: string | undefined): void {
  if (value !== undefined && value !== '' && !EMAIL.test(value)) checks.add('email', 'is invalid')
}

/** `POST /users`: `{ user: { username, email, password } }`. */
export function registration(body: unknown): { username: string; email: string; password: string } {
  const o = wrapped(body, 'user')
  const checks = new Checks()
  const input = {
    username: required(checks, o, 'username'),
    email: required(checks, o, 'email'),
    password: required(checks, o, 'password'),
  }
  email(checks, input.email)
  checks.done()
  return input
}

/** `POST /users/login`: `{ user: { email, password } }`. */
export function credentials(body: unknown): { email: string; password: string } {
  const o = wrapped(body, 'user')
  const checks = new Checks()
  const input = { email: required(checks, o, 'email'), password: required(checks, o, 'password') }
  checks.done()
  return input
}

/** `PUT /user`: `{ user: { email?, username?, password?, bio?, image? } }`, at least one; bio and image may be empty (or null: cleared). */
export function userUpdate(body: unknown): {
  email?: string | undefined
  username?: string | undefined
  password?: string | undefined
  bio?: string | undefined
  image?: string | undefined
} {
  const o = wrapped(body, 'user')
  const checks = new Checks()
  const clearable = (field: string) => (o[field] === null ? '' : optional(checks, o, field, true))
  const input = {
    email: optional(checks, o, 'email'),
    username: optional(checks, o, 'username'),
    password: optional(checks, o, 'password'),
    bio: clearable('bio'),
    image: clearable('image'),
  }
  email(checks, input.email)
  // A field given but refused (a number for the image) is not a request changing nothing.
  if (!checks.failed && Object.values(input).every((v) => v === undefined))
    checks.add('user', 'must change at least one field')
  checks.done()
  return input
}

/** `POST /articles`: `{ article: { title, description, body, tagList? } }`. */
export function newArticle(body: unknown): {
  title: string
  description: string
  body: string
  tagList: string[]
} {
  const o = wrapped(body, 'article')
  const checks = new Checks()
  const input = {
    title: required(checks, o, 'title'),
    description: required(checks, o, 'description'),
    body: required(checks, o, 'body'),
    tagList: [] as string[],
  }
  const tags = o['tagList']
  if (tags !== undefined && tags !== null) {
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string' && t.trim() !== '')) {
      checks.add('tagList', 'must be a list of non-blank strings')
    } else if (tags.every((t: string) => storable(checks, 'tagList', t))) {
      input.tagList = tags.map((t: string) => t.trim())
    }
  }
  checks.done()
  return input
}

/** `PUT /articles/:slug`: `{ article: { title?, description?, body? } }`, at least one. */
export function articleUpdate(body: unknown): {
  title?: string | undefined
  description?: string | undefined
  body?: string | undefined
} {
  const o = wrapped(body, 'article')
  const checks = new Checks()
  const input = {
    title: optional(checks, o, 'title'),
    description: optional(checks, o, 'description'),
    body: optional(checks, o, 'body'),
  }
  if (!checks.failed && Object.values(input).every((v) => v === undefined))
    checks.add('article', 'must change at least one field')
  checks.done()
  return input
}

/** `POST /articles/:slug/comments`: `{ comment: { body } }`. */
export function newComment(body: unknown): { body: string } {
  const o = wrapped(body, 'comment')
  const checks = new Checks()
  const input = { body: required(checks, o, 'body') }
  checks.done()
  return input
}

/** The list's window from the query string: `limit` 1-100 (default 20), `offset` >= 0 (default 0). */
export function pageOf(query: URLSearchParams): { limit: number; offset: number } {
  const checks = new Checks()
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const text = query.get(name)
    if (text === null) return fallback
    const n = Number(text)
    if (!/^\d+$/.test(text) || n < min || n > max) {
      checks.add(name, `must be an integer from ${min} to ${max}`)
      return fallback
    }
    return n
  }
  const page = {
    limit: integer('limit', 20, 1, 100),
    offset: integer('offset', 0, 0, Number.MAX_SAFE_INTEGER),
  }
  checks.done()
  return page
}

/** A comment id from the path: a positive integer, else no such comment (404). */
export function commentId(text: string | undefined): number | undefined {
  const n = Number(text)
  return text !== undefined && /^\d+$/.test(text) && Number.isSafeInteger(n) && n <= 2 ** 31 - 1
    ? n
    : undefined
}
