import { describe, expect, it } from 'vitest'
import { DATE_LIMIT_MS, MIN_TIMESTAMP_MS } from '../../../src/values/calendar.ts'
import { timestampText } from '../../../src/values/timestamp.ts'
import {
  TIMESTAMP_TEXT_BYTES,
  writableTime,
  writeTimestampText,
} from '../../../src/values/timestamp-bytes.ts'

/** The time of a UTC date of any year (`Date.UTC` reads years 0 to 99 as 1900 to 1999). */
function utc(year: number, month: number, day: number): number {
  const d = new Date(0)
  d.setUTCFullYear(year, month, day)
  return d.getTime()
}

/** What `writeTimestampText` writes of `ms`, as a string. */
function written(ms: number, withZone: boolean): string {
  const out = Buffer.alloc(TIMESTAMP_TEXT_BYTES + 4, 0x7e)
  const end = writeTimestampText(out, 2, ms, withZone)
  expect(out[0]).toBe(0x7e) // nothing before
  expect(out[end]).toBe(0x7e) // nothing after
  return out.toString('latin1', 2, end)
}

describe('writeTimestampText', () => {
  it('writes what timestampText writes, byte for byte, over the whole range of Dates', () => {
    const times = [
      0,
      -1,
      1,
      86_399_999,
      Date.UTC(2026, 0, 1, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 12, 0, 0, 7),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10_000, 0, 1),
      Date.UTC(275_760, 8, 12, 23, 59, 59, 999),
      utc(1, 0, 1), // 0001-01-01
      utc(1, 0, 1) - 1, // the last instant of 1 BC
      utc(-4713, 10, 24), // 4714-11-24 BC
      MIN_TIMESTAMP_MS,
      DATE_LIMIT_MS,
      -DATE_LIMIT_MS,
      DATE_LIMIT_MS - 1,
    ]
    // Random instants, BC ones included.
    let seed = 7
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (let k = 0; k < 5_000; k++)
      times.push(Math.floor(MIN_TIMESTAMP_MS + next() * (DATE_LIMIT_MS - 1 - MIN_TIMESTAMP_MS)))
    for (const ms of times) {
      expect(writableTime(ms), String(ms)).toBe(true)
      for (const withZone of [true, false])
        expect(written(ms, withZone), String(ms)).toBe(timestampText(new Date(ms), withZone))
    }
  })

  it('takes only the times timestampText writes', () => {
    expect(writableTime(MIN_TIMESTAMP_MS - 1)).toBe(false)
    expect(writableTime(Number.NaN)).toBe(false)
    expect(() => timestampText(new Date(MIN_TIMESTAMP_MS - 1), true)).toThrow()
  })
})
