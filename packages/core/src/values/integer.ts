import type { ScalarCodec } from './codec.ts'
import { sameByCanonical, sign } from './codec.ts'
import { describeValue, problem } from './location.ts'

const INTEGER_TEXT = /^-?\d+$/

const INT8_MIN = -(2n ** 63n)
const INT8_MAX = 2n ** 63n - 1n

function smallIntegerCodec(type: 'int2' | 'int4', bits: 16 | 32): ScalarCodec {
  const max = 2 ** (bits - 1) - 1
  const min = -(2 ** (bits - 1))
  const check = (value: unknown): number => {
    if (typeof value !== 'number') problem(`expected a number for ${type}, got ${describeValue(value)}`)
    if (!Number.isInteger(value)) problem(`${describeValue(value)} is not a valid ${type} (not an integer)`)
    if (value < min || value > max) problem(`${value} is out of range for ${type} (${min} to ${max})`)
    return value === 0 ? 0 : value
  }
  const canonical = (value: unknown): string => String(check(value))
  return {
    encode: canonical,
    decode(text) {
      if (!INTEGER_TEXT.test(text)) problem(`cannot decode ${describeValue(text)} as ${type}`)
      return Number(text)
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
 * @example
 * int8Text('007') // '7'
 * int8Text(5n) // '5'
 */
export function int8Text(value: unknown): string {
  let n: bigint
  if (typeof value === 'bigint') n = value
  else if (typeof value === 'number') {
    if (!Number.isInteger(value)) problem(`${describeValue(value)} is not a valid int8 (not an integer)`)
    if (!Number.isSafeInteger(value)) {
      problem(
        `${describeValue(value)} is not a safe integer: pass int8 values beyond 2^53 as a bigint or a string`,
      )
    }
    n = BigInt(value)
  } else if (typeof value === 'string') {
    if (!INTEGER_TEXT.test(value))
      problem(`${describeValue(value)} is not a valid int8 (expected decimal digits)`)
    n = BigInt(value)
  } else {
    problem(`expected a bigint, a number or a decimal string for int8, got ${describeValue(value)}`)
  }
  if (n < INT8_MIN || n > INT8_MAX) problem(`${describeValue(value)} is out of range for int8`)
  return n.toString()
}

/** `int8`: written from a safe-integer number, a bigint or a decimal string; read as a string. */
export const int8Codec: ScalarCodec = {
  encode: int8Text,
  decode(text) {
    if (!INTEGER_TEXT.test(text)) problem(`cannot decode ${describeValue(text)} as int8`)
    return text
  },
  same: (a, b) => sameByCanonical(int8Text, a, b),
  key: int8Text,
  compareKeys: (a, b) => sign(BigInt(a) - BigInt(b)),
}
