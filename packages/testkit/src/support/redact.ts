/**
 * Removes the password from a connection URL so it can be printed.
 *
 * @example
 * redactUrl('postgres://app:s3cret@127.0.0.1:5432/db') // 'postgres://app:***@127.0.0.1:5432/db'
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@')
  }
}
