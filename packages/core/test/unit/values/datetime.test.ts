import { describe, expect, it } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'
import { civilFromDays, daysFromCivil, MIN_TIMESTAMP_MS } from '../../../src/values/calendar.ts'
import { decodeValue, encodeValue } from '../../../src/values/index.ts'
import { at, column } from './columns.ts'

const tz = column('timestamptz')
const ts = column('timestamp')
const date = column('date')

describe('calendar arithmetic', () => {
  it('agrees with Date over the whole JS range, BC years included', () => {
    for (let days = -100_000_000; days <= 100_000_000; days += 9_973) {
      const d = new Date(days * 86_400_000)
      const civil = civilFromDays(days)
      expect(civil).toEqual({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() })
      expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days)
    }
  })

  it('puts the earliest PostgreSQL timestamp at 4714-11-24 BC', () => {
    expect(MIN_TIMESTAMP_MS).toBe(-210866803200000)
  })
})

describe('timestamptz', () => {
  it('encodes a Date as its UTC instant with offset +00, to the millisecond', () => {
    expect(encodeValue(new Date('2024-01-02T03:04:05.678Z'), tz, at)).toBe('2024-01-02 03:04:05.678+00')
    expect(encodeValue(new Date(0), tz, at)).toBe('1970-01-01 00:00:00.000+00')
    expect(encodeValue(new Date(-1), tz, at)).toBe('1969-12-31 23:59:59.999+00')
  })

  it('encodes years outside 1..9999 the way PostgreSQL writes them (BC, more digits)', () => {
    expect(encodeValue(new Date('0001-01-01T00:00:00Z'), tz, at)).toBe('0001-01-01 00:00:00.000+00')
    expect(encodeValue(new Date('0000-12-31T23:59:59.999Z'), tz, at)).toBe('0001-12-31 23:59:59.999+00 BC')
    expect(encodeValue(new Date('-000043-03-15T12:00:00Z'), tz, at)).toBe('0044-03-15 12:00:00.000+00 BC')
    expect(encodeValue(new Date('+010000-01-01T00:00:00Z'), tz, at)).toBe('10000-01-01 00:00:00.000+00')
    expect(encodeValue(new Date(MIN_TIMESTAMP_MS), tz, at)).toBe('4714-11-24 00:00:00.000+00 BC')
    expect(encodeValue(new Date(8.64e15 - 1), tz, at)).toBe('275760-09-12 23:59:59.999+00')
  })

  it('writes the largest and smallest Dates as infinity and -infinity', () => {
    expect(encodeValue(new Date(8.64e15), tz, at)).toBe('infinity')
    expect(encodeValue(new Date(-8.64e15), ts, at)).toBe('-infinity')
    // Bug (outside probe shapes4): a date column wrote the largest as '275760-09-13' and refused the
    // smallest ('before 4714-11-24 BC'), where the documentation says infinity, as for timestamps.
    expect(encodeValue(new Date(8.64e15), date, at)).toBe('infinity')
    expect(encodeValue(new Date(-8.64e15), date, at)).toBe('-infinity')
    expect(encodeValue(new Date(8.64e15 - 86_400_000), date, at)).toBe('275760-09-12')
  })

  it('rejects invalid Dates, Dates before 4714 BC, strings and numbers', () => {
    expect(() => encodeValue(new Date(Number.NaN), tz, at)).toThrow(
      'book.c (row id=7): an invalid Date is not a valid timestamptz',
    )
    expect(() => encodeValue(new Date(MIN_TIMESTAMP_MS - 1), tz, at)).toThrow(/before 4714-11-24 BC/)
    expect(() => encodeValue('2024-01-01T00:00:00Z', tz, at)).toThrow(
      /expected a Date for timestamptz, got a string of 20 characters/,
    )
    expect(() => encodeValue(0, ts, at)).toThrow(/expected a Date for timestamp, got a number/)
  })

  it('decodes the server text in any session time zone, truncating microseconds', () => {
    const cases: [string, string][] = [
      ['2024-01-02 03:04:05.123456+00', '2024-01-02T03:04:05.123Z'],
      ['2024-01-02 03:04:05+00', '2024-01-02T03:04:05.000Z'],
      ['2024-01-02 03:04:05.5+00', '2024-01-02T03:04:05.500Z'],
      ['2024-01-02 03:04:05.999999+00', '2024-01-02T03:04:05.999Z'],
      ['2024-01-01 05:30:00.5+05:30', '2024-01-01T00:00:00.500Z'],
      ['2026-11-21 04:36:46.519378-03:30', '2026-11-21T08:06:46.519Z'],
      ['1900-01-01 00:19:32+00:19:32', '1900-01-01T00:00:00.000Z'],
      ['1883-11-18 11:50:00-04:56:02', '1883-11-18T16:46:02.000Z'],
      ['2024-06-01 12:00:00-07', '2024-06-01T19:00:00.000Z'],
    ]
    for (const [text, iso] of cases) expect((decodeValue(text, tz) as Date).toISOString()).toBe(iso)
  })

  it('decodes BC and five-digit years and the infinities', () => {
    expect((decodeValue('0044-03-15 12:00:00+00 BC', tz) as Date).toISOString()).toBe(
      '-000043-03-15T12:00:00.000Z',
    )
    expect((decodeValue('4714-11-24 00:00:00+00 BC', tz) as Date).getTime()).toBe(MIN_TIMESTAMP_MS)
    expect((decodeValue('10000-01-01 00:00:00+00', tz) as Date).toISOString()).toBe(
      '+010000-01-01T00:00:00.000Z',
    )
    expect((decodeValue('infinity', tz) as Date).getTime()).toBe(8.64e15)
    expect((decodeValue('-infinity', tz) as Date).getTime()).toBe(-8.64e15)
  })

  it('rejects texts outside a JS Date and non-ISO DateStyles', () => {
    expect(() => decodeValue('294276-12-31 23:59:59+00', tz)).toThrow(
      /outside the range of a JavaScript Date/,
    )
    // The largest Date itself, as the drivers write new Date(8.64e15), reads; a microsecond past it does not.
    expect((decodeValue('275760-09-13 00:00:00+00', tz) as Date).getTime()).toBe(8.64e15)
    expect(() => decodeValue('275760-09-13 00:00:00.001+00', tz)).toThrow(/outside the range/)
    expect(() => decodeValue('275760-09-13 00:00:00.000001+00', tz)).toThrow(/outside the range/)
    expect(() => decodeValue('21/11/2026 08:06:49.232337 UTC', tz)).toThrow(/DateStyle ISO/)
    expect(() => decodeValue('2024-01-02 03:04:05', tz)).toThrow(/cannot decode/)
    expect(() => decodeValue('2024-02-30 03:04:05+00', tz)).toThrow(/cannot decode/)
    let error: unknown
    try {
      decodeValue('garbage', tz, { table: 'book', key: { id: 1 } })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(PipeflushError)
    expect((error as PipeflushError).message).toMatch(
      /^book\.c \(row id=1\): cannot decode a string of 7 characters as timestamptz/,
    )
  })

  it('round-trips through its own text form', () => {
    for (const ms of [
      0,
      -1,
      1_700_000_000_123,
      -62_135_596_800_001,
      MIN_TIMESTAMP_MS,
      8.64e15 - 1,
      8.64e15,
      -8.64e15,
    ]) {
      const text = encodeValue(new Date(ms), tz, at)!
      expect((decodeValue(text, tz) as Date).getTime()).toBe(ms)
    }
  })
})

describe('timestamp without time zone', () => {
  it('writes the UTC wall clock and reads it back as UTC', () => {
    const d = new Date('2024-01-02T03:04:05.678Z')
    expect(encodeValue(d, ts, at)).toBe('2024-01-02 03:04:05.678')
    expect(decodeValue('2024-01-02 03:04:05.678901', ts)).toEqual(d)
    expect(encodeValue(new Date('-000043-03-15T12:00:00Z'), ts, at)).toBe('0044-03-15 12:00:00.000 BC')
    expect((decodeValue('0044-03-15 12:00:00 BC', ts) as Date).toISOString()).toBe(
      '-000043-03-15T12:00:00.000Z',
    )
  })

  it('rejects a text with an offset', () => {
    expect(() => decodeValue('2024-01-02 03:04:05+00', ts)).toThrow(/cannot decode/)
  })
})

describe('date', () => {
  it('writes YYYY-MM-DD strings as is and Dates as their UTC calendar date', () => {
    expect(encodeValue('2024-02-29', date, at)).toBe('2024-02-29')
    expect(encodeValue(new Date('2024-01-02T23:59:59.999Z'), date, at)).toBe('2024-01-02')
    expect(encodeValue(new Date('1969-12-31T12:00:00Z'), date, at)).toBe('1969-12-31')
    expect(encodeValue(new Date('-000043-03-15T00:00:00Z'), date, at)).toBe('0044-03-15 BC')
    expect(encodeValue('0044-03-15 BC', date, at)).toBe('0044-03-15 BC')
    expect(encodeValue('10000-01-01', date, at)).toBe('10000-01-01')
    expect(encodeValue('5874897-12-31', date, at)).toBe('5874897-12-31')
    expect(encodeValue('4714-11-24 BC', date, at)).toBe('4714-11-24 BC')
    expect(encodeValue('infinity', date, at)).toBe('infinity')
    expect(encodeValue('-infinity', date, at)).toBe('-infinity')
  })

  it('rejects malformed, impossible and out-of-range dates', () => {
    for (const bad of [
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-01-32',
      '0000-01-01',
      '24-01-01',
      '2024-1-1',
    ]) {
      expect(() => encodeValue(bad, date, at), bad).toThrow(/is not a valid date \(expected 'YYYY-MM-DD'\)/)
    }
    for (const bad of ['2024-01-01T00:00:00Z', '2024-01-01 ', 'Infinity', '01/02/2024', '010000-01-01']) {
      expect(() => encodeValue(bad, date, at), bad).toThrow(/is not a valid date/)
    }
    expect(() => encodeValue('4714-11-23 BC', date, at)).toThrow(/out of range for date/)
    expect(() => encodeValue('5874898-01-01', date, at)).toThrow(/out of range for date/)
    expect(() => encodeValue(new Date(Number.NaN), date, at)).toThrow(/an invalid Date is not a valid date/)
    expect(() => encodeValue(new Date(-8.64e15 + 86_400_000), date, at)).toThrow(/before 4714-11-24 BC/)
    expect(() => encodeValue(20240101, date, at)).toThrow(/expected a 'YYYY-MM-DD' string or a Date for date/)
  })

  it('reads the server text as is', () => {
    for (const text of ['2024-01-02', '0044-03-15 BC', '10000-01-01', 'infinity', '-infinity']) {
      expect(decodeValue(text, date)).toBe(text)
    }
    expect(() => decodeValue('02/01/2024', date)).toThrow(/DateStyle ISO/)
  })
})
