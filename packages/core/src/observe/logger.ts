import { errors } from '../errors.ts'
import { describeValue } from '../values/location.ts'

/**
 * Where pipeflush logs, in pino's shape (`logger.info({ ...fields }, 'message')`): pino, or anything
 * with these methods (bunyan, winston and console take the same arguments). Each level optional.
 * - `debug`: each flush's and read batch's statements, as texts without values (`$1`...), with the
 *   table and rows of each;
 * - `info`: each flush's outcome (its report: mode, round trips, statements, rows, time);
 * - `warn`: a flush or read that failed (its code and message, which show no value the application
 *   wrote).
 *
 * @example
 * await EntityManager.connect(pool, { logger: pino({ level: 'debug' }) })
 */
export interface Logger {
  debug?(fields: object, message?: string): void
  info?(fields: object, message?: string): void
  warn?(fields: object, message?: string): void
  error?(fields: object, message?: string): void
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const

/**
 * The `logger` option, checked: undefined, or an object whose levels are functions.
 *
 * A bad logger is `INVALID_CONFIG` at connect, not an error in the middle of a flush.
 */
export function loggerOption(value: unknown): Logger | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null)
    throw errors.invalidConfig(
      `logger must be an object with debug/info/warn/error methods, not ${describeValue(value)}.`,
    )
  for (const level of LEVELS) {
    const fn = (value as Record<string, unknown>)[level]
    if (fn !== undefined && typeof fn !== 'function')
      throw errors.invalidConfig(`logger.${level} must be a function, not ${describeValue(fn)}.`)
  }
  return value as Logger
}

/** Calls `logger[level]` as the logger's own method; a logger that throws does not break the flush. */
export function log(
  logger: Logger | undefined,
  level: (typeof LEVELS)[number],
  fields: object,
  message: string,
): void {
  const fn = logger?.[level]
  if (fn === undefined) return
  try {
    fn.call(logger, fields, message)
  } catch {
    // a logger's failure is the logger's; the flush goes on
  }
}
