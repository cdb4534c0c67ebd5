import type { ScalarCodec } from './codec.ts'
import { describeWritten, problem } from './location.ts'
import { compareCodeUnits, textProblem } from './text.ts'

/**
 * A value `JSON.stringify` writes exactly and `JSON.parse` reads back deep-equal (an object's
 * property that is `undefined` is left out, as `JSON.stringify` leaves it out).
 */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue }

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * How deep arrays and objects may nest in a json or jsonb value: a deeper one is `INVALID_VALUE`
 * before anything is sent. PostgreSQL takes any depth, but `JSON.stringify`, which writes the value,
 * and the snapshot's copy recurse, and run out of stack a few thousand levels down (a `RangeError`,
 * at a depth that depends on the caller's stack).
 */
export const MAX_JSON_DEPTH = 1000

function checkJson(value: unknown, path: string, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string': {
      const why = textProblem(value)
      if (why !== undefined) problem(`the JSON string at ${path} ${why}`)
      return
    }
    case 'number':
      if (!Number.isFinite(value)) problem(`${describeWritten(value)} at ${path} is not a JSON number`, value)
      return
    case 'boolean':
      return
    case 'object':
      break
    default:
      problem(`${describeWritten(value)} at ${path} is not a JSON value`, value)
  }
  if (value === null) return
  if (ancestors.has(value)) problem(`the value at ${path} is circular`)
  if (ancestors.size >= MAX_JSON_DEPTH)
    problem(`the value nests arrays and objects more than ${MAX_JSON_DEPTH} deep, more than pipeflush writes`)
  ancestors.add(value)
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype)
      problem(`${describeWritten(value)} at ${path} is not a plain array`, value)
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) problem(`the array at ${path} has a hole at index ${i}`)
      checkJson(value[i], `${path}[${i}]`, ancestors)
    }
  } else {
    if (value instanceof Date) problem(`a Date at ${path} is not JSON: store date.toISOString() instead`)
    if (!isPlainObject(value))
      problem(`${describeWritten(value)} at ${path} is not JSON (only plain objects are)`, value)
    if (Object.getOwnPropertySymbols(value).length > 0) problem(`the object at ${path} has symbol keys`)
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue // left out, as JSON.stringify leaves it out
      const why = textProblem(key)
      if (why !== undefined) problem(`the key ${describeWritten(key)} at ${path} ${why}`, key)
      checkJson(v, `${path}.${key}`, ancestors)
    }
  }
  ancestors.delete(value)
}

/**
 * The JSON text of `value` for `json`/`jsonb`, after checking that `JSON.stringify` writes it exactly:
 * plain objects and arrays, strings, finite numbers, booleans and nulls only, an object's property
 * that is `undefined` left out, as `JSON.stringify`, Drizzle and the drivers leave it out (no other
 * undefined — in an array, `JSON.stringify` would write null —, no functions,
 * symbols, bigints, NaN, Dates, Maps, class instances, holes, cycles, NUL characters or lone
 * surrogates). A top-level JS `null` is SQL NULL, never the JSON `null`. A JS string is stored as a
 * JSON string (`'{"a":1}'` is written `"{\"a\":1}"`), never parsed.
 */
export function jsonText(value: unknown): string {
  checkJsonValue(value)
  try {
    return JSON.stringify(value)
  } catch (e) {
    // Within MAX_JSON_DEPTH, only a caller already deep in its own stack gets here.
    if (e instanceof RangeError) problem(`the value is too deep to write here (${e.message})`)
    throw e
  }
}

/** Depth past which {@link plainJson} leaves a value to {@link checkJson} (which tells a cycle apart). */
const PLAIN_DEPTH = 64

/**
 * Throws a value problem naming where unless `JSON.stringify` writes `value` exactly: a quick walk
 * first ({@link plainJson}: no path, no set of ancestors), the walk that names the problem only when
 * the quick one finds one.
 */
function checkJsonValue(value: unknown): void {
  if (!plainJson(value, 0)) checkJson(value, '$', new Set())
}

/**
 * Whether `value` is JSON as {@link checkJson} requires, without naming what is not: false also for a
 * value nested deeper than {@link PLAIN_DEPTH} (maybe a cycle), which `checkJson` decides.
 */
function plainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      return textProblem(value) === undefined
    case 'number':
      return Number.isFinite(value)
    case 'boolean':
      return true
    case 'object':
      break
    default:
      return false
  }
  if (value === null) return true
  if (depth >= PLAIN_DEPTH) return false
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false
    for (let i = 0; i < value.length; i++) if (!(i in value) || !plainJson(value[i], depth + 1)) return false
    return true
  }
  if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return false
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const v = (value as Record<string, unknown>)[key]
    if (v === undefined) continue // left out (see checkJson)
    if (textProblem(key) !== undefined) return false
    if (!plainJson(v, depth + 1)) return false
  }
  return true
}

/**
 * Deep equality of JSON values: object key order is ignored (jsonb reorders keys), a property that is
 * `undefined` is no property (it is not written), numbers compare with `===` (so `-0` equals `0`;
 * jsonb does not keep `-0`).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ra = a as Record<string, unknown>
  const rb = b as Record<string, unknown>
  let defined = 0
  for (const k of Object.keys(a)) {
    const va = ra[k]
    if (va === undefined) continue
    defined++
    if (!Object.hasOwn(b, k) || !sameJson(va, rb[k])) return false
  }
  let inB = 0
  for (const k of Object.keys(b)) if (rb[k] !== undefined) inB++
  return defined === inB
}

/**
 * `json` and `jsonb`: any JSON value, written with `JSON.stringify`, read with `JSON.parse`. jsonb
 * reorders keys, drops duplicate keys and normalizes numbers (`1.0` reads as `1`), so a round trip
 * gives a deep-equal value, not the same text. Numbers beyond double precision lose digits on read.
 * `jsonb` values can be keys (their key is the JSON text with object keys sorted, equal for values
 * jsonb finds equal); `json` has no equality, so its values cannot.
 */
export const jsonCodec: ScalarCodec = {
  encode: jsonText,
  decode(text) {
    try {
      return JSON.parse(text) as unknown
    } catch {
      return problem(`cannot decode ${describeWritten(text)} as JSON`, text)
    }
  },
  same: sameJson,
  key(value, column) {
    if (column.type !== 'jsonb')
      return problem('json values cannot be keys (json has no equality; jsonb has)')
    checkJsonValue(value)
    return sortedJson(value)
  },
  compareKeys: compareCodeUnits,
}

/** JSON text with object keys sorted: one text per jsonb value. */
function sortedJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort(compareCodeUnits)
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`).join(',')}}`
}
