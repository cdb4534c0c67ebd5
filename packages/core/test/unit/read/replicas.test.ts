import { describe, expect, test } from 'vitest'
import type { Driver } from '../../../src/drivers/driver.ts'
import { pinnedToPrimary, ReplicaSet, replicaSafe } from '../../../src/read/replicas.ts'

describe('replicaSafe', () => {
  test.each([
    ['select * from book where id = $1', true],
    ['  SELECT 1', true],
    ['with x as (select 1) select * from x', true],
    ['values (1)', true],
    ['table book', true],
    ['select * from book where id = $1 for update', false],
    ['select * from book for no key update skip locked', false],
    ['select * from book for share', false],
    ['select * from book FOR KEY SHARE', false],
    ['with d as (delete from book returning *) select * from d', false],
    ['insert into flush_log values (1)', false],
    ['update book set title = 1', false],
    ['do $$ begin end $$', false],
  ])('%s: %s', (text, safe) => {
    expect(replicaSafe(text)).toBe(safe)
  })
})

describe('ReplicaSet', () => {
  const replica = (address: string) => ({ address }) as Driver

  test('takes the replicas in turn, leaves out one that failed or lags beyond the bound, with its reason', () => {
    const set = new ReplicaSet([replica('a:1'), replica('b:1')], 100)
    expect(set.pick()).toMatchObject({ index: 0 })
    expect(set.pick()).toMatchObject({ index: 1 })
    set.failed(0, 'CONNECTION_LOST')
    expect(set.pick()).toMatchObject({ index: 1 })
    expect(set.pick()).toMatchObject({ index: 1 })
    expect(set.answered(1, 250)).toBe('lagging 250 ms, more than maxReplicaLagMs (100)')
    expect(set.pick()).toEqual({
      skipped: ['a:1: down (CONNECTION_LOST)', 'b:1: lagging 250 ms, more than maxReplicaLagMs (100)'],
    })
    expect(set.status()).toEqual([
      { address: 'a:1', usable: false, lagMs: undefined, reason: 'down (CONNECTION_LOST)' },
      {
        address: 'b:1',
        usable: false,
        lagMs: 250,
        reason: 'lagging 250 ms, more than maxReplicaLagMs (100)',
      },
    ])
    // An answer within the bound makes a replica usable again.
    expect(set.answered(0, 0)).toBeUndefined()
    expect(set.pick()).toMatchObject({ index: 0 })
  })
})

describe('pinnedToPrimary', () => {
  test("starts the text with Pgpool-II's comment once, parameters kept", () => {
    const pinned = pinnedToPrimary({ text: 'select * from t where id = $1', params: ['1'] })
    expect(pinned).toEqual({ text: '/*NO LOAD BALANCE*/ select * from t where id = $1', params: ['1'] })
    expect(pinnedToPrimary(pinned)).toEqual(pinned)
  })
})
