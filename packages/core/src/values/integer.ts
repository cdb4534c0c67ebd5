import type { ScalarCodec } from './codec.ts'
import { sameByCanonical, sign } from './codec.ts'
import { describeWritten, problem } from './location.ts'

const INTEGER_TEXT = /^-?\d+$/

const INT8_MIN = -(2n ** 63n)
const INT8_MAX = 2n ** 63n - 1n

function smallIntegerCodec(type: 'int2' | 'int4', bits: 16 | 32): ScalarCodec {
  const max = 2 ** (bits - 1) - 1
  const min = -(2 ** (bits - 1))
  const check = (value: unknown): number => {
    if (typeof value !== 'number')
      problem(`expected a number for ${type}, got ${describeWritten(value)}`, value)
    if (!Number.isInteger(value))
      problem(`${describeWritten(value)} is not a valid ${type} (not an integer)`, value)
    if (value < min || value > max)
      problem(`${describeWritten(value)} is out of range for ${type} (${min} to ${max})`, value)
    return value === 0 ? 0 : value
  }
  const canonical = (value: unknown): string => String(check(value))
  return {
    encode: canonical,
    check: (value) => {
      check(value)
    },
    decode(text) {
      if (!INTEGER_TEXT.test(text)) problem(`cannot decode ${describeWritten(text)} as ${type}`, text)
      const n = Number(text)
      // Beyond the type's range only when the column's type changed since the schema was read (to
      // int8): never a rounded number.
      if (n < min || n > max)
        problem(
          `cannot decode ${describeWritten(text)} as ${type}: out of its range (was the column's type changed since the schema was read? see refreshSchema)`,
          text,
        )
      return n
    },
    same: (a, b) => typeof a === 'number' && typeof b === 'number' && a === b,
    key: canonical,
    compareKeys: (a, b) => sign(Number(a) - Number(b)),
  }
}

/** `int2`: a JS number, integer, -32768 to 32767. */
export const int2Codec: ScalarCodec = smallIntegerCodec('int2', 16)
/** `int4`: a JS number, integer, -2147483648 to 2147483647. */
export const int4Codec: ScalarCodec = smallIntegerCodec('int4', 32)

/**
 * The canonical decimal form of an `int8` given as a safe-integer number, a bigint or a
 * decimal-integer string (optional `-`, digits only). Throws a value problem otherwise.
 *
 * An int8 may exceed JavaScript's safe integers: it travels as decimal text, one form per value.
 */
export function int8Text(value: unknown): string {
  // Fast paths: every safe integer and every canonical text of up to 18 digits is within int8.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  if (typeof value === 'string' && isShortCanonical(value)) return value
  let n: bigint
  if (typeof value === 'bigint') n = value
  else if (typeof value === 'number') {
    if (!Number.isInteger(value))
      problem(`${describeWritten(value)} is not a valid int8 (not an integer)`, value)
    problem(
      `${describeWritten(value)} is not a safe integer: pass int8 values beyond 2^53 as a bigint or a string`,
      value,
    )
  } else if (typeof value === 'string') {
    if (!INTEGER_TEXT.test(value))
      problem(`${describeWritten(value)} is not a valid int8 (expected decimal digits)`, value)
    n = BigInt(value)
  } else {
    problem(`expected a bigint, a number or a decimal string for int8, got ${describeWritten(value)}`, value)
  }
  if (n < INT8_MIN || n > INT8_MAX) problem(`${describeWritten(value)} is out of range for int8`, value)
  return n.toString()
}

/**
 * Whether `text` is an integer's canonical decimal form (`-` only before a non-zero number, no
 * leading zeros) of at most 18 digits, so certainly within int8.
 */
function isShortCanonical(text: string): boolean {
  const start = text.charCodeAt(0) === 45 ? 1 : 0
  const digits = text.length - start
  if (digits < 1 || digits > 18) return false
  const first = text.charCodeAt(start)
  if (first === 48) return digits === 1 && start === 0
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/**
 * Orders two canonical int8 texts numerically without BigInt: by sign, then by length, then by
 * digits (reversed for negative numbers).
 *
 * Ordering int8 keys this way allocates nothing, where BigInt would allocate at each comparison.
 */
export function compareInt8Texts(a: string, b: string): number {
  if (a === b) return 0
  const negA = a.charCodeAt(0) === 45
  const negB = b.charCodeAt(0) === 45
  if (negA !== negB) return negA ? -1 : 1
  const byMagnitude = a.length !== b.length ? a.length - b.length : a < b ? -1 : 1
  return sign(negA ? -byMagnitude : byMagnitude)
}

/** `int8`: written from a safe-integer number, a bigint or a decimal string; read as a string. */
export const int8Codec: ScalarCodec = {
  encode: int8Text,
  check: (value) => {
    // A safe integer is within int8; anything else is checked by writing it.
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) int8Text(value)
  },
  decode(text) {
    if (!INTEGER_TEXT.test(text)) problem(`cannot decode ${describeWritten(text)} as int8`, text)
    return text
  },
  same: (a, b) => sameByCanonical(int8Text, a, b),
  key: int8Text,
  compareKeys: compareInt8Texts,
}
