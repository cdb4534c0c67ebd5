import type { FlushReport } from '@pipeflush/core'
import { expect, test } from 'vitest'
import { describeFlush } from '../../src/index.ts'

const base: FlushReport = {
  flushId: 'f',
  mode: 'burst',
  driver: 'pg',
  roundTrips: 1,
  connectRoundTrips: 0,
  connected: false,
  statements: 6,
  waves: 3,
  inserted: 25,
  updated: 0,
  deleted: 0,
  upserted: 0,
  idFetch: false,
  durationMs: 7.84,
}

test('describeFlush names what was written, the statements, waves, round trips and time', () => {
  expect(describeFlush(base)).toBe('burst: 25 inserted, 6 statements in 3 waves, 1 round trip, 7.8 ms')
  expect(
    describeFlush({
      ...base,
      mode: 'off',
      roundTrips: 6,
      updated: 3,
      deleted: 7,
      idFetch: true,
      connected: true,
      connectRoundTrips: 3,
    }),
  ).toBe(
    'off: 25 inserted, 3 updated, 7 deleted, 6 statements in 3 waves, 6 round trips, 7.8 ms (ids fetched, connection opened: 3 round trips)',
  )
  const empty = { ...base, inserted: 0, statements: 0, waves: 0, roundTrips: 0, durationMs: 0 }
  expect(describeFlush(empty)).toBe('burst: nothing to write, 0 statements in 0 waves, 0 round trips, 0.0 ms')
})
