import { errors } from '../errors.ts'
import type { ScalarType } from '../model/model.ts'
import { byteaCodec } from './bytea.ts'
import type { ScalarCodec } from './codec.ts'
import { dateCodec } from './date.ts'
import { numericCodec } from './decimal.ts'
import { float4Codec, float8Codec } from './float.ts'
import { int2Codec, int4Codec, int8Codec } from './integer.ts'
import { jsonCodec } from './json.ts'
import { otherCodec } from './other.ts'
import { boolCodec, bpcharCodec, enumCodec, textCodec, uuidCodec, varcharCodec } from './string-types.ts'
import { timestampCodec, timestamptzCodec } from './timestamp.ts'

const CODECS: Readonly<Record<ScalarType, ScalarCodec>> = {
  int2: int2Codec,
  int4: int4Codec,
  int8: int8Codec,
  numeric: numericCodec,
  float4: float4Codec,
  float8: float8Codec,
  text: textCodec,
  varchar: varcharCodec,
  bpchar: bpcharCodec,
  bool: boolCodec,
  date: dateCodec,
  timestamp: timestampCodec,
  timestamptz: timestamptzCodec,
  uuid: uuidCodec,
  json: jsonCodec,
  jsonb: jsonCodec,
  bytea: byteaCodec,
  enum: enumCodec,
  other: otherCodec,
}

/** The codec of a scalar type (`INTERNAL_ERROR` for a type outside {@link ScalarType}). */
export function codecFor(type: ScalarType): ScalarCodec {
  const codec = CODECS[type]
  if (codec === undefined) throw errors.internal('codecFor', `no codec for column type ${String(type)}`)
  return codec
}

/** Types whose JS values may themselves be arrays (so array columns of them hold arrays as elements). */
export function elementsMayBeArrays(type: ScalarType): boolean {
  return type === 'json' || type === 'jsonb'
}
