import { errors } from '../errors.ts'
import { quoteIdentifier } from '../values/identifier.ts'
import { describeValue } from '../values/location.ts'
import { quoteCheckedLiteral } from '../values/sql-literal.ts'
import { textProblem } from '../values/text.ts'

/**
 * Configuration parameters set in every transaction an entity manager's flushes and reads run in
 * (`SET LOCAL`), in the same message as their statements: what row-level security policies read
 * (`current_setting('app.tenant_id')`, a request's JWT claims), or the role they apply to (`role`).
 * They end with the transaction, so a pooled connection goes back to the pool as it came.
 */
export interface LocalSettings {
  /** Each parameter's value, by name as given. */
  readonly values: ReadonlyMap<string, string>
  /** `set local "app"."tenant_id" = '42'`, one per parameter, in the order given. */
  readonly texts: readonly string[]
}

/** No parameter set: flushes and reads send what they did without the option. */
export const NO_LOCAL_SETTINGS: LocalSettings = { values: new Map(), texts: [] }

/** A parameter's name: a word, or words joined by dots (`app.tenant_id`), as `SET` takes it. */
const NAME = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$/

/**
 * The `localSettings` option checked and written as `SET LOCAL` texts, over the `inherited` ones (a
 * fork's: the same name given again takes the fork's value). A value is a string, a finite number or a
 * boolean (written as its text). A bad option is `INVALID_CONFIG` before any query; a name the server
 * does not know fails the first flush or read that sends it (`STATEMENT_FAILED`, nothing committed).
 *
 * @example
 * localSettingsOption({ 'app.tenant_id': 42, role: 'tenant_user' }).texts
 * // [`set local "app"."tenant_id" = '42'`, `set local "role" = 'tenant_user'`]
 */
export function localSettingsOption(
  given: unknown,
  inherited: LocalSettings = NO_LOCAL_SETTINGS,
): LocalSettings {
  if (given === undefined) return inherited
  if (!isPlainObject(given))
    throw errors.invalidConfig(
      `localSettings must be a plain object of parameter names and values (its own properties are read), not ${describeValue(given)}.`,
    )
  const entries = Object.entries(given)
  if (entries.length === 0) return inherited
  const values = new Map(inherited.values)
  for (const [name, value] of entries) {
    if (!NAME.test(name))
      throw errors.invalidConfig(
        `localSettings: ${JSON.stringify(name)} is not a configuration parameter's name (a word, or words joined by dots, such as app.tenant_id).`,
      )
    // The server cuts a longer word to 63 bytes with a notice only: the setting a policy reads by
    // the whole name would be another one, unset.
    const long = name.split('.').find((part) => part.length > MAX_NAME_BYTES)
    if (long !== undefined)
      throw errors.invalidConfig(
        `localSettings: ${JSON.stringify(name)} has a word longer than ${MAX_NAME_BYTES} characters (${long.length}), which the server would cut, setting another parameter.`,
      )
    values.set(name, settingText(name, value))
  }
  const texts: string[] = []
  for (const [name, text] of values) texts.push(`set local ${sqlName(name)} = ${settingValue(name, text)}`)
  return { values, texts }
}

/** The longest word of a parameter's name the server keeps whole (its identifiers' 63 bytes). */
const MAX_NAME_BYTES = 63

/** An object literal's kind: a Map, a class instance or an object of getters has no own entries to read. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * Parameters whose value is a list of names (`search_path`, `temp_tablespaces`): `SET` reads a string
 * literal given to them as one name, so `'tenant_a, public'` would be a single schema of that name.
 */
const LIST_OF_NAMES = new Set(['search_path', 'temp_tablespaces'])

/** An item of such a list: a plain name (folded to lower case, as the server folds it) or a quoted one. */
const LIST_ITEM = /^(?:[A-Za-z_][A-Za-z0-9_$]*|\$user|"(?:[^"]|"")+")$/

/**
 * The value of `name` as `SET` takes it: a string literal, or for a list of names (see
 * {@link LIST_OF_NAMES}) each name quoted, as `set_config` reads the same text
 * (`'tenant_a, "Public"'` is `"tenant_a", "Public"`).
 */
function settingValue(name: string, text: string): string {
  if (!LIST_OF_NAMES.has(name.toLowerCase())) return quoteCheckedLiteral(text)
  const items = text.split(',').map((item) => item.trim())
  for (const item of items)
    if (!LIST_ITEM.test(item))
      throw errors.invalidConfig(
        `localSettings.${name}: ${JSON.stringify(text)} is not a list of names (plain names, or double-quoted ones, separated by commas).`,
      )
  return items
    .map((item) =>
      item.startsWith('"') ? item : quoteIdentifier(item === '$user' ? item : item.toLowerCase()),
    )
    .join(', ')
}

/**
 * The `SET LOCAL`s of the `localSettings` option as the start of a simple-protocol message (each
 * followed by `;` and a new line), or '' for none: what pipeflush's own queries outside a flush or a
 * read batch (the catalog read, the id fetch) run with.
 *
 * @example
 * localSettingsText({ role: 'reader' }) // `set local "role" = 'reader';\n`
 */
export function localSettingsText(given: unknown): string {
  const { texts } = localSettingsOption(given)
  return texts.length === 0 ? '' : `${texts.join(';\n')};\n`
}

/** The text `value` of parameter `name` is set to. */
function settingText(name: string, value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean'
        ? String(value)
        : undefined
  if (text === undefined)
    throw errors.invalidConfig(
      `localSettings.${name} must be a string, a finite number or a boolean, not ${describeValue(value)}.`,
    )
  const why = textProblem(text)
  if (why !== undefined) throw errors.invalidConfig(`localSettings.${name}: the value ${why}.`)
  return text
}

/** `app.tenant_id` as `"app"."tenant_id"`: each word quoted, so that a reserved word (`app.user`) is a name. */
function sqlName(name: string): string {
  return name
    .split('.')
    .map((part) => quoteIdentifier(part))
    .join('.')
}
