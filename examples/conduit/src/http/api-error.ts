/** Field name to messages (the error body holds them, and every message in `errors.body`: see the server). */
export type ErrorFields = Readonly<Record<string, readonly string[]>>

/**
 * An answer other than success: its status and the spec's error body. Thrown by handlers and input
 * checks; the server writes it. A request that ends with one commits nothing (its unit of work is not
 * flushed).
 *
 * @example
 * throw notFound('article')  // 404 { errors: { article: ['not found'] } }
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly status: number
  readonly errors: ErrorFields

  constructor(status: number, errors: ErrorFields) {
    super(
      `${status}: ${Object.entries(errors)
        .map(([field, messages]) => `${field} ${messages.join(', ')}`)
        .join('; ')}`,
    )
    this.status = status
    this.errors = errors
  }
}

/** 401: no token where one is required, or a token that is not valid. */
export function unauthorized(why: string): ApiError {
  return new ApiError(401, { token: [why] })
}

/** 403: the signed-in user may not change this `what` (an article or comment of another user). */
export function forbidden(what: string): ApiError {
  return new ApiError(403, { [what]: ['belongs to another user'] })
}

/** 404: no such `what`. */
export function notFound(what: string): ApiError {
  return new ApiError(404, { [what]: ['not found'] })
}

/** 422: the request cannot be processed as it is (invalid fields, a taken username or email). */
export function unprocessable(errors: ErrorFields): ApiError {
  return new ApiError(422, errors)
}
