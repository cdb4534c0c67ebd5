/**
 * Values: every value pipeflush writes travels as text (`text[]` parameters cast in SQL) and every
 * value it reads is selected as `::text` and decoded here, independent of the postgres.js client's
 * type configuration.
 */
export { arrayLiteral, delimitedArrayLiteral, parseArrayLiteral } from './array-literal.ts'
export { castSql, castText, castTextList, comparedColumn, typeSqlName } from './cast.ts'
export type { ScalarCodec } from './codec.ts'
export { decodeValue, plainCodec } from './decode.ts'
export { checkValue, encodeKeyValue, encodeValue } from './encode.ts'
export { quoteIdentifier } from './identifier.ts'
export type { JsonValue } from './json.ts'
export { compareKeyValues, compareNormalizedKeys, normalizeKeyValue, referencingValue } from './key.ts'
export type { ValueLocation } from './location.ts'
export type { TypedParameterFactory } from './param.ts'
export { TEXT_ARRAY_OID, textArrayParam } from './param.ts'
export { sameValue } from './same.ts'
export { quoteStringLiteral, quoteTextArrayLiteral } from './sql-literal.ts'
export { storedKeyText } from './string-types.ts'
