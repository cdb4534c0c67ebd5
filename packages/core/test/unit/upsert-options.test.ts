import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import postgres from 'postgres'
import { afterAll, describe, expect, test } from 'vitest'

// An upsert's options refused at the call, naming what is wrong. postgres.js connects lazily and
// nothing here reaches the database.
const sql = postgres('postgres://nobody@127.0.0.1:1/none', { max: 1, connect_timeout: 1 })
afterAll(() => sql.end({ timeout: 0 }))

const schema = defineSchema({
  doubled: {
    columns: { a: 'int4', id: { type: 'int4', generated: true }, v: { type: 'text', nullable: true } },
    primaryKey: ['id'],
  },
})

describe('upsert options', () => {
  // Bug (outside probe): a conflict on a generated column failed with "doubled.id (new row): undefined
  // is not a value (use null for SQL NULL)", though the caller gave no undefined and could give no value.
  test('a conflict on a generated column is INVALID_CONFIG at the call, saying a row cannot give its value', async () => {
    const em = (await EntityManager.connect(sql, { schema })).fork()
    let error: unknown
    try {
      em.upsert('doubled', { a: 1, v: 'x' }, { conflict: ['id'] })
    } catch (e) {
      error = e
    }
    expect(isPipeflushError(error) && error.code).toBe('INVALID_CONFIG')
    expect(String((error as Error).message)).toBe(
      'upsert(doubled): the conflict column "id" is a generated column, whose value a row cannot give: an upsert finds its row by the values of its conflict columns. Name a unique key the row gives (the columns "id" is generated from, under a unique constraint).',
    )
    expect(em.plan().waves).toEqual([])
  })
})
