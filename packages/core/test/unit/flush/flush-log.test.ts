import { describe, expect, test } from 'vitest'
import { flushLogDdl, flushLogInsert, flushLogSqlName } from '../../../src/flush/flush-log.ts'

describe('flush log SQL', () => {
  test('names are quoted, a schema split at the first dot', () => {
    expect(flushLogSqlName('pipeflush_flush_log')).toBe('"pipeflush_flush_log"')
    expect(flushLogSqlName('audit.flush "log"')).toBe('"audit"."flush ""log"""')
    expect(() => flushLogSqlName('')).toThrowError(/table name/)
  })

  test('the log insert opens the flush, or nothing does', () => {
    const id = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
    expect(flushLogInsert(undefined, id)).toEqual([])
    expect(flushLogInsert('"log"', id)).toEqual([
      `insert into "log" (flush_id, committed) values ('${id}'::uuid, true)`,
    ])
    expect(() => flushLogInsert('"log"', "x'); drop table t; --")).toThrowError(/uuid/)
  })

  test('the DDL in the docs and errors', () => {
    expect(flushLogDdl('pipeflush_flush_log')).toBe(
      'create table "pipeflush_flush_log" (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())',
    )
  })
})
