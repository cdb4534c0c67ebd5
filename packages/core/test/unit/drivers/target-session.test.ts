import { describe, expect, it } from 'vitest'
import { refusalOf, targetSessionAttrs, wantsPrimary } from '../../../src/drivers/socket/target-session.ts'

/** The parameters a PostgreSQL 14+ server reports at its startup. */
const primary = new Map([
  ['in_hot_standby', 'off'],
  ['default_transaction_read_only', 'off'],
])
/** A hot standby reports default_transaction_read_only off: only in_hot_standby tells it. */
const standby = new Map([
  ['in_hot_standby', 'on'],
  ['default_transaction_read_only', 'off'],
])
const readOnlyPrimary = new Map([
  ['in_hot_standby', 'off'],
  ['default_transaction_read_only', 'on'],
])
/** PostgreSQL before 14 reports neither. */
const old = new Map([['server_version', '13.0']])

describe('targetSessionAttrs', () => {
  it('reads the values libpq and postgres.js know; anything else is any', () => {
    expect(targetSessionAttrs('read-write')).toBe('read-write')
    expect(targetSessionAttrs('prefer-standby')).toBe('prefer-standby')
    expect(targetSessionAttrs(null)).toBe('any')
    expect(targetSessionAttrs(undefined)).toBe('any')
    expect(targetSessionAttrs('')).toBe('any')
    expect(targetSessionAttrs('nonsense')).toBe('any')
  })

  it('read-write and primary want a primary; the others do not', () => {
    expect(['read-write', 'primary'].map((a) => wantsPrimary(targetSessionAttrs(a)))).toEqual([true, true])
    expect(
      ['any', 'read-only', 'standby', 'prefer-standby'].map((a) => wantsPrimary(targetSessionAttrs(a))),
    ).toEqual([false, false, false, false])
  })
})

describe('refusalOf', () => {
  it('read-write refuses a hot standby although it reports default_transaction_read_only off', () => {
    expect(refusalOf('read-write', standby)).toMatch(/in recovery/)
    expect(refusalOf('primary', standby)).toMatch(/in recovery/)
  })

  it('accepts a primary', () => {
    expect(refusalOf('read-write', primary)).toBeUndefined()
    expect(refusalOf('primary', primary)).toBeUndefined()
  })

  it('read-write refuses a primary whose sessions are read-only by default; primary does not', () => {
    expect(refusalOf('read-write', readOnlyPrimary)).toMatch(/default_transaction_read_only/)
    expect(refusalOf('primary', readOnlyPrimary)).toBeUndefined()
  })

  it('cannot tell without in_hot_standby (PostgreSQL before 14): unknown, left to the driver', () => {
    expect(refusalOf('read-write', old)).toBe('unknown')
    expect(refusalOf('primary', old)).toBe('unknown')
  })

  it('judges nothing for attributes that do not want a primary', () => {
    for (const attrs of ['any', 'read-only', 'standby', 'prefer-standby'] as const) {
      expect(refusalOf(attrs, standby)).toBeUndefined()
      expect(refusalOf(attrs, primary)).toBeUndefined()
    }
  })
})
