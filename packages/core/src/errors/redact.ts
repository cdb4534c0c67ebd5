/**
 * Passwords must never reach an error message, a log line or a report. pipeflush itself never puts a
 * connection URL in a message, but driver and Node errors can carry one (Node's URL errors keep the
 * whole `input`, a DNS error its host), so every error a flush throws passes through here.
 */

/** `scheme://user:password@` → `scheme://user:***@`. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):[^\s@/]*@/gi
/** `password=...` in a keyword/value connection string, quoted or not. */
const KEYWORD_PASSWORD = /\b(password|pass|pwd)(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&;]+)/gi

/**
 * `text` with the passwords of connection URLs and `password=` settings replaced by `***`.
 *
 * A driver's error may quote a connection string, and messages go to logs and error trackers.
 */
export function redactSecrets(text: string): string {
  return text.replace(URL_PASSWORD, '$1:***@').replace(KEYWORD_PASSWORD, '$1$2***')
}

const MAX_DEPTH = 8

/**
 * Redacts, in place, the message, stack and string properties of `error` and of its `cause` chain.
 * Properties that cannot be written are left as they are. Returns `error`.
 */
export function redactError<T>(error: T): T {
  let current: unknown = error
  const seen = new Set<object>()
  for (let depth = 0; depth < MAX_DEPTH && typeof current === 'object' && current !== null; depth++) {
    if (seen.has(current)) break
    seen.add(current)
    for (const key of Object.getOwnPropertyNames(current)) {
      const descriptor = Object.getOwnPropertyDescriptor(current, key)
      if (descriptor === undefined || !('value' in descriptor) || typeof descriptor.value !== 'string')
        continue
      const clean = redactSecrets(descriptor.value)
      if (clean === descriptor.value) continue
      try {
        ;(current as Record<string, unknown>)[key] = clean
      } catch {
        // A read-only property (frozen or defined without `writable`) keeps its value.
      }
    }
    current = (current as { cause?: unknown }).cause
  }
  return error
}
