import { randomBytes } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'

/** Who a valid token says the request is from. */
export interface Auth {
  readonly userId: number
  /** The token as sent (`GET /user` hands it back). */
  readonly token: string
}

const ALGORITHM = 'HS256'

/**
 * Signs and checks the API's tokens: JWTs (HS256, with `jose`) whose subject is the user's id, valid
 * for a day. The secret is given (e.g. from the environment), or random per process.
 *
 * @example
 * const tokens = new Tokens()
 * const token = await tokens.sign(7)
 * await tokens.verify(token) // { userId: 7, token }
 */
export class Tokens {
  readonly #secret: Uint8Array

  constructor(secret: Uint8Array = randomBytes(32)) {
    this.#secret = secret
  }

  /** A token for user `userId`. */
  sign(userId: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM })
      .setSubject(String(userId))
      .setIssuedAt()
      .setExpirationTime('1d')
      .sign(this.#secret)
  }

  /** The auth `token` carries, or undefined when it is not one of ours, altered or expired. */
  async verify(token: string): Promise<Auth | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.#secret, { algorithms: [ALGORITHM] })
      const userId = Number(payload.sub)
      return Number.isSafeInteger(userId) && userId > 0 ? { userId, token } : undefined
    } catch {
      return undefined
    }
  }
}
