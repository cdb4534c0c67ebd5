import type { ScalarCodec } from './codec.ts'
import { describeWritten, problem } from './location.ts'

const FLOAT_OUTPUT = /^(-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|NaN|-?Infinity)$/

function finite(value: unknown, type: string): number {
  if (typeof value !== 'number')
    problem(`expected a number for ${type}, got ${describeWritten(value)}`, value)
  if (!Number.isFinite(value)) problem(`${describeWritten(value)} is not a valid ${type}`, value)
  return value
}

function floatText(n: number): string {
  return Object.is(n, -0) ? '-0' : String(n)
}

function decodeFloat(text: string, type: string): number {
  if (!FLOAT_OUTPUT.test(text)) problem(`cannot decode ${describeWritten(text)} as ${type}`, text)
  return Number(text)
}

/** Key form of a float: `-0` and `0` are one key (PostgreSQL compares them equal), so is every NaN. */
function floatKey(n: number): string {
  return n === 0 ? '0' : String(n)
}

function compareFloatKeys(a: string, b: string): number {
  const x = Number(a)
  const y = Number(b)
  // PostgreSQL sorts NaN above every other value.
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1
  return x < y ? -1 : x > y ? 1 : 0
}

function readKey(value: unknown, type: string): number {
  if (typeof value !== 'number')
    problem(`expected a number for ${type}, got ${describeWritten(value)}`, value)
  return value
}

/**
 * `float8`: a finite JS number, written in its shortest round-trip form (`-0` kept), so the stored
 * double is exactly the JS number. Reads may return `NaN` or `±Infinity` stored by other writers.
 */
export const float8Codec: ScalarCodec = {
  encode: (value) => floatText(finite(value, 'float8')),
  check: (value) => {
    finite(value, 'float8')
  },
  decode: (text) => decodeFloat(text, 'float8'),
  same: (a, b) => typeof a === 'number' && typeof b === 'number' && Object.is(a, b),
  key: (value) => floatKey(readKey(value, 'float8')),
  compareKeys: compareFloatKeys,
}

/** A float4's value: a finite number rounded to single precision, in range (else a problem). */
function single(value: unknown): number {
  const n = finite(value, 'float4')
  const rounded = Math.fround(n)
  if (!Number.isFinite(rounded) || (rounded === 0 && n !== 0))
    problem(`${describeWritten(n)} is out of range for float4`, n)
  return rounded
}

/**
 * `float4`: a finite JS number, rounded to single precision (`Math.fround`) before it is written, so
 * the stored value is exactly `Math.fround(n)`. Reads return the server's shortest text for that
 * single (`0.1` reads back as `0.1`, not as `Math.fround(0.1)`); {@link sameValue} compares after
 * `Math.fround`. Numbers that round to infinity or underflow to zero are rejected, like the server does.
 */
export const float4Codec: ScalarCodec = {
  encode: (value) => floatText(single(value)),
  check: (value) => {
    single(value)
  },
  decode: (text) => decodeFloat(text, 'float4'),
  same: (a, b) => typeof a === 'number' && typeof b === 'number' && Object.is(Math.fround(a), Math.fround(b)),
  key: (value) => floatKey(Math.fround(readKey(value, 'float4'))),
  compareKeys: compareFloatKeys,
}
