import type postgres from 'postgres'
import { describe, expect, test } from 'vitest'
import { resolvePrepare } from '../../../src/execute/pooler.ts'

/** A stand-in client: its `options.prepare`, and the pids its one query reports. */
function fakeSql(prepare: boolean, serverPid: number, keyPid: number): postgres.Sql {
  const unsafe = async () => Object.assign([{ pid: serverPid }], { state: { pid: keyPid, secret: 1 } })
  return { options: { prepare }, unsafe } as unknown as postgres.Sql
}

describe('resolvePrepare', () => {
  test('prepared statements when the client prepares and no pooler is in between', async () => {
    expect(await resolvePrepare(fakeSql(true, 42, 42), undefined)).toBe(true)
  })

  test('a pooler (cancel key not the server pid) is refused, naming the settings that work', async () => {
    await expect(resolvePrepare(fakeSql(true, 42, 9_999_999), undefined)).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringMatching(/pooler.*prepare: false.*PgBouncer >= 1\.21/s),
    })
  })

  test('a client made with prepare: false gets the simple protocol, pooler or not', async () => {
    expect(await resolvePrepare(fakeSql(false, 42, 9_999_999), undefined)).toBe(false)
  })

  test('explicit settings skip the check; prepare: true on a non-preparing client is refused', async () => {
    expect(await resolvePrepare(fakeSql(true, 42, 9_999_999), true)).toBe(true)
    expect(await resolvePrepare(fakeSql(true, 42, 42), false)).toBe(false)
    await expect(resolvePrepare(fakeSql(false, 42, 42), true)).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    })
    await expect(resolvePrepare(fakeSql(true, 42, 42), 'yes' as never)).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    })
  })
})
