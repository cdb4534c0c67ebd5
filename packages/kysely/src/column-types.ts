import type { ColumnType } from 'kysely'

/**
 * Column types for a Kysely `DB` interface matching pipeflush's value representations.
 *
 * @example
 * interface DB { account: { id: Generated<Int8>; amount: Numeric; version: Generated<number> } }
 */
/** kysely-codegen's `Generated`, which also unwraps a `ColumnType` (e.g. `Generated<Int8>`). */
export type Generated<T> =
  T extends ColumnType<infer S, infer I, infer U>
    ? ColumnType<S, I | undefined, U>
    : ColumnType<T, T | undefined, T>

/** `bigint` columns: read as strings by pipeflush, written from numbers, bigints or strings. */
export type Int8 = ColumnType<string, string | number | bigint, string | number | bigint>

/** `numeric` columns: read as exact decimal strings, written from numbers or strings. */
export type Numeric = ColumnType<string, string | number, string | number>
