import type { NumericTypmod, ScalarType } from '../model/model.ts'
import { typeSqlName } from '../values/cast.ts'

/** What a column type written in SQL (`bigint`, `varchar(40)[]`, `interval year`, `public.citext`) means for pipeflush. */
export type ParsedSqlType =
  | {
      readonly kind: 'known'
      readonly type: Exclude<ScalarType, 'enum' | 'other'>
      readonly isArray: boolean
      readonly maxLength?: number
      readonly numericTypmod?: NumericTypmod
    }
  | {
      readonly kind: 'other'
      /** See `ColumnModel.castType`. */
      readonly castType: string
      readonly isArray: boolean
      readonly inputTypmod?: number
      readonly arrayDelimiter?: string
    }

type Known = Exclude<ScalarType, 'enum' | 'other'>

/** SQL spellings of the types pipeflush has a codec for, as the grammar and `format_type` write them. */
const KNOWN: Readonly<Record<string, Known>> = {
  int2: 'int2',
  smallint: 'int2',
  int4: 'int4',
  int: 'int4',
  integer: 'int4',
  int8: 'int8',
  bigint: 'int8',
  numeric: 'numeric',
  decimal: 'numeric',
  dec: 'numeric',
  float4: 'float4',
  real: 'float4',
  float8: 'float8',
  'double precision': 'float8',
  text: 'text',
  varchar: 'varchar',
  'character varying': 'varchar',
  'char varying': 'varchar',
  bpchar: 'bpchar',
  char: 'bpchar',
  character: 'bpchar',
  bool: 'bool',
  boolean: 'bool',
  date: 'date',
  timestamp: 'timestamp',
  'timestamp without time zone': 'timestamp',
  timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz',
  uuid: 'uuid',
  json: 'json',
  jsonb: 'jsonb',
  bytea: 'bytea',
}

/** Spellings of pg_catalog types the grammar writes in several words or with a meaning of their own. */
const OTHER_SPELLINGS: Readonly<Record<string, string>> = {
  bit: 'bit',
  'bit varying': 'varbit',
  'time without time zone': 'time',
  'time with time zone': 'timetz',
}

/** The field masks of an interval typmod, as PostgreSQL encodes them (range in the high 16 bits). */
const MONTH = 1 << 1
const YEAR = 1 << 2
const DAY = 1 << 3
const HOUR = 1 << 10
const MINUTE = 1 << 11
const SECOND = 1 << 12
const INTERVAL_FIELDS: Readonly<Record<string, number>> = {
  year: YEAR,
  month: MONTH,
  day: DAY,
  hour: HOUR,
  minute: MINUTE,
  second: SECOND,
  'year to month': YEAR | MONTH,
  'day to hour': DAY | HOUR,
  'day to minute': DAY | HOUR | MINUTE,
  'day to second': DAY | HOUR | MINUTE | SECOND,
  'hour to minute': HOUR | MINUTE,
  'hour to second': HOUR | MINUTE | SECOND,
  'minute to second': MINUTE | SECOND,
}
const INTERVAL_FULL_RANGE = 0x7fff
const INTERVAL_FULL_PRECISION = 0xffff
const MAX_INTERVAL_PRECISION = 6

/**
 * The typmod of `interval [fields] [(p)]` (`fields` as written, e.g. `day to second`), or undefined for a
 * plain `interval` or unknown fields.
 *
 * An interval's fields change how its text reads, so its input needs the typmod (see `castText`).
 */
export function intervalTypmod(fields: string, precision: number | undefined): number | undefined {
  const range = fields === '' ? INTERVAL_FULL_RANGE : INTERVAL_FIELDS[fields]
  if (range === undefined) return undefined
  if (fields === '' && precision === undefined) return undefined
  const p = precision === undefined ? INTERVAL_FULL_PRECISION : Math.min(precision, MAX_INTERVAL_PRECISION)
  return (range << 16) | p
}

interface Token {
  readonly kind: 'word' | 'quoted' | 'number' | 'punct'
  readonly text: string
}

/** The names of `numeric`, whose scale may be negative. */
const NUMERIC_NAMES: ReadonlySet<string> = new Set(['numeric', 'decimal', 'dec'])

/** A token of a type name; a number may be negative (`numeric(3,-2)`, a scale from PostgreSQL 15). */
const TOKEN = /\s*(?:"((?:[^"]|"")*)"|([A-Za-z_][A-Za-z0-9_$]*)|(-?\d+)|([.(),[\]]))/y

function tokenize(sql: string): Token[] | undefined {
  const tokens: Token[] = []
  TOKEN.lastIndex = 0
  let at = 0
  while (at < sql.length) {
    if (/^\s*$/.test(sql.slice(at))) break
    TOKEN.lastIndex = at
    const m = TOKEN.exec(sql)
    if (m === null) return undefined
    at = TOKEN.lastIndex
    if (m[1] !== undefined) {
      if (m[1] === '') return undefined
      tokens.push({ kind: 'quoted', text: m[1].replace(/""/g, '"') })
    } else if (m[2] !== undefined) tokens.push({ kind: 'word', text: m[2].toLowerCase() })
    else if (m[3] !== undefined) tokens.push({ kind: 'number', text: m[3] })
    else tokens.push({ kind: 'punct', text: m[4] ?? '' })
  }
  return tokens
}

/** Takes a trailing `[]`, `[n]` or `array` off `tokens`; the number taken (1-D arrays only are supported). */
function takeArray(tokens: Token[]): number {
  let dims = 0
  for (;;) {
    const last = tokens[tokens.length - 1]
    if (last?.kind === 'word' && last.text === 'array') {
      tokens.pop()
      dims++
    } else if (last?.text === ']' && last.kind === 'punct') {
      const open = tokens[tokens.length - 2]?.text === '[' ? 2 : 3
      if (tokens[tokens.length - open]?.text !== '[') return -1
      tokens.splice(tokens.length - open, open)
      dims++
    } else {
      return dims
    }
  }
}

/**
 * Reads a column type as written in SQL: the types pipeflush has a codec for in any of their spellings
 * (`bigint`, `character varying(40)`, `timestamp(3) with time zone`, `int4[]`), or any other type
 * (`inet`, `bit(3)`, `interval year`, `public.citext`, `"My Type"[]`), whose typmod is dropped from
 * the cast (the column's assignment applies it) except where the input needs it (intervals). Returns
 * a string describing the problem when it cannot be read.
 *
 * Lets `defineSchema` take column types as SQL writes them.
 */
export function parseSqlType(sql: string): ParsedSqlType | string {
  const tokens = tokenize(sql)
  if (tokens === undefined || tokens.length === 0) return 'not a type name'
  const dims = takeArray(tokens)
  if (dims < 0) return 'unbalanced [ ]'
  if (dims > 1) return 'only one-dimensional arrays are supported'
  const isArray = dims === 1
  // Qualified: schema.name, with optional (typmod) the assignment applies.
  let schema: string | undefined
  if (tokens[1]?.text === '.' && tokens[1].kind === 'punct') {
    const first = tokens[0]
    if (first === undefined || first.kind === 'number' || first.kind === 'punct') return 'not a type name'
    schema = first.text
    tokens.splice(0, 2)
  }
  const words: string[] = []
  const numbers: number[] = []
  let quoted: string | undefined
  let depth = 0
  let afterParens = false
  for (const t of tokens) {
    if (t.kind === 'punct') {
      if (t.text === '(') depth++
      else if (t.text === ')') {
        depth--
        if (depth < 0) return 'unbalanced ( )'
        afterParens = true
      } else if (t.text !== ',' || depth === 0) return `unexpected ${t.text}`
    } else if (depth > 0) {
      if (t.kind === 'number') numbers.push(Number(t.text))
    } else if (t.kind === 'number') {
      return `unexpected ${t.text}`
    } else if (t.kind === 'quoted') {
      if (words.length > 0 || quoted !== undefined || afterParens) return 'not a type name'
      quoted = t.text
    } else {
      if (quoted !== undefined) return 'not a type name'
      words.push(t.text)
    }
  }
  if (depth !== 0) return 'unbalanced ( )'
  // A negative number is a numeric's scale only (`numeric(3,-2)`).
  const negative = numbers.findIndex((n) => n < 0)
  if (negative >= 0 && !(negative === 1 && NUMERIC_NAMES.has(words.join(' '))))
    return `unexpected ${numbers[negative]}`
  if (quoted !== undefined) return { kind: 'other', castType: typeSqlName(schema, quoted), isArray }
  const name = words.join(' ')
  if (name === '') return 'not a type name'
  if (schema === undefined || schema === 'pg_catalog') {
    const known =
      name === 'float' ? (numbers[0] !== undefined && numbers[0] <= 24 ? 'float4' : 'float8') : KNOWN[name]
    if (known !== undefined) {
      let maxLength: number | undefined
      if (known === 'varchar' && numbers[0] !== undefined) maxLength = numbers[0]
      if (known === 'bpchar' && name !== 'bpchar') maxLength = numbers[0] ?? 1
      if (known === 'bpchar' && name === 'bpchar' && numbers[0] !== undefined) maxLength = numbers[0]
      if (known === 'numeric' && numbers[0] !== undefined)
        return {
          kind: 'known',
          type: known,
          isArray,
          numericTypmod: { precision: numbers[0], scale: numbers[1] ?? 0 },
        }
      return maxLength === undefined
        ? { kind: 'known', type: known, isArray }
        : { kind: 'known', type: known, isArray, maxLength }
    }
    if (name === 'interval' || name.startsWith('interval ')) {
      const typmod = intervalTypmod(name.slice('interval'.length).trim(), numbers[0])
      if (name !== 'interval' && typmod === undefined) return `unknown interval fields in ${name}`
      return typmod === undefined
        ? { kind: 'other', castType: typeSqlName('pg_catalog', 'interval'), isArray }
        : { kind: 'other', castType: typeSqlName('pg_catalog', 'interval'), isArray, inputTypmod: typmod }
    }
    const other = OTHER_SPELLINGS[name]
    if (other !== undefined) return { kind: 'other', castType: typeSqlName('pg_catalog', other), isArray }
    // box is the one built-in type whose array elements are separated by ';'.
    if (name === 'box' && isArray) return { kind: 'other', castType: 'box', isArray, arrayDelimiter: ';' }
  }
  if (words.length > 1) return `unknown type ${name}`
  return { kind: 'other', castType: typeSqlName(schema, name), isArray }
}
