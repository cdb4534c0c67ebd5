import type { ScalarCodec } from './codec.ts'
import { describeWritten, problem } from './location.ts'
import { compareCodeUnits } from './text.ts'

const HEX_BYTES = /^(?:[0-9a-fA-F]{2})*$/

function bytes(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array))
    problem(`expected a Buffer or a Uint8Array for bytea, got ${describeWritten(value)}`, value)
  return value
}

/**
 * The `\x...` hex text of a Buffer or Uint8Array for `bytea`.
 *
 * Values go to the server as text: this is bytea's.
 */
export function byteaText(value: unknown): string {
  const b = bytes(value)
  return `\\x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`
}

/**
 * The bytes of a `bytea` text in either output format: `hex` (`\x00ff`, the default) or `escape`
 * (`\000\377`, printable ASCII as itself, `\\` for a backslash).
 */
export function parseByteaText(text: string): Buffer {
  if (text.startsWith('\\x')) {
    const hex = text.slice(2)
    if (!HEX_BYTES.test(hex)) problem(`cannot decode ${describeWritten(text)} as bytea`, text)
    return Buffer.from(hex, 'hex')
  }
  const out: number[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 92) {
      if (text.charCodeAt(i + 1) === 92) {
        out.push(92)
        i++
        continue
      }
      const octal = text.slice(i + 1, i + 4)
      if (!/^[0-3][0-7]{2}$/.test(octal)) problem(`cannot decode ${describeWritten(text)} as bytea`, text)
      out.push(Number.parseInt(octal, 8))
      i += 3
    } else {
      if (c > 127) problem(`cannot decode ${describeWritten(text)} as bytea`, text)
      out.push(c)
    }
  }
  return Buffer.from(out)
}

function sameBytes(a: unknown, b: unknown): boolean {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.byteLength !== b.byteLength) return false
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)
}

/** `bytea`: a Buffer or Uint8Array on write; a Buffer on read. Keys order by bytes, as the server does. */
export const byteaCodec: ScalarCodec = {
  encode: byteaText,
  decode: parseByteaText,
  same: sameBytes,
  key: byteaText,
  compareKeys: compareCodeUnits,
}
