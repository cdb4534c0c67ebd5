import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

const KEY_BYTES = 32

/**
 * Hashes and checks passwords with scrypt (`node:crypto`), stored as `scrypt$<N>$<salt>$<key>`
 * (base64url), a new random salt each time. The default cost, N = 2^14 with r = 8 and p = 1 (16 MiB),
 * is the usual one for interactive logins: about 40 ms of CPU on libuv's thread pool, more on a busy
 * machine. A hash keeps the N it was made with, so a lower N (tests) or a higher one later still
 * checks the passwords stored before.
 *
 * @example
 * const passwords = new Passwords()
 * const stored = await passwords.hash('hunter2')
 * await passwords.verify('hunter2', stored) // true
 */
export class Passwords {
  readonly #n: number

  /** `n`: scrypt's CPU and memory cost, a power of two (default 16384). */
  constructor(n = 16384) {
    if (!Number.isSafeInteger(n) || n < 2 || (n & (n - 1)) !== 0)
      throw new Error(`scrypt's N must be a power of two, not ${n}`)
    this.#n = n
  }

  /** The stored form of `password`. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16)
    const key = await derive(password, salt, this.#n)
    return `scrypt$${this.#n}$${salt.toString('base64url')}$${key.toString('base64url')}`
  }

  /** Whether `password` is the one `stored` was made from; compared in constant time. */
  async verify(password: string, stored: string): Promise<boolean> {
    const [scheme, n, salt, key] = stored.split('$')
    const cost = Number(n)
    if (scheme !== 'scrypt' || salt === undefined || key === undefined || !Number.isSafeInteger(cost))
      return false
    const expected = Buffer.from(key, 'base64url')
    const actual = await derive(password, Buffer.from(salt, 'base64url'), cost)
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  }
}

function derive(password: string, salt: Buffer, n: number): Promise<Buffer> {
  const options = { N: n, r: 8, p: 1, maxmem: 256 * n * 8 + 1024 * 1024 }
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (e, key) => (e ? reject(e) : resolve(key))),
  )
}
