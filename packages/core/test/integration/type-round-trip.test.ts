import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { quoteIdentifier } from '../../src/values/index.ts'
import { buildRows, COLUMNS, ENUM_LABELS, ENUM_SQL } from './values/samples.ts'

/**
 * Every common column type, scalar and array, through the entity manager: create, flush, load in a
 * fresh unit of work, compare; then move every value one row down with updates and compare again.
 * NULLs first, last and everywhere (rows 0 and last are all NULL; arrays hold NULLs in every position).
 */
const db = useTestDatabase()
const { write, read } = buildRows(COLUMNS)
const names = COLUMNS.map((c) => c.model.name)

beforeAll(async () => {
  const labels = ENUM_LABELS.map((l) => `'${l.replace(/'/g, "''")}'`).join(', ')
  await db.sql.unsafe(`create type ${ENUM_SQL} as enum (${labels})`)
  const columns = COLUMNS.map((c) => `${quoteIdentifier(c.model.name)} ${c.ddl}`).join(', ')
  for (const mode of ['off', 'waves', 'burst'])
    await db.sql.unsafe(`create table vals_${mode} (id int4 primary key, ${columns})`)
})

const rowOf = (values: readonly unknown[]) => Object.fromEntries(names.map((n, k) => [n, values[k]]))

describe.each<PipelineMode>(['off', 'waves', 'burst'])('%s', (mode) => {
  test('every type round-trips exactly through create, flush and load, and through updates', async () => {
    const { sql } = db.connect({ max: 1 })
    const root = await EntityManager.connect(sql, { pipeline: mode })
    const table = `vals_${mode}`
    const em = root.fork()
    for (const [r, values] of write.entries()) em.create(table, { id: r, ...rowOf(values) })
    await em.flush()

    const check = async (expected: (r: number) => unknown[]) => {
      const fresh = root.fork()
      const rows = await fresh.find(table)
      expect(rows).toHaveLength(read.length)
      for (const [r, entity] of rows.entries()) {
        expect(entity['id']).toBe(r)
        expect(
          names.map((n) => entity[n]),
          `row ${r}`,
        ).toStrictEqual(expected(r))
      }
      return { fresh, rows }
    }
    const { fresh, rows } = await check((r) => read[r]!)
    // Shift every row's values to the next row (the last takes row 0's): updates of every column.
    for (const [r, entity] of rows.entries()) {
      const source = write[(r + 1) % write.length]!
      for (const [k, n] of names.entries()) entity[n] = source[k]
    }
    const report = await fresh.flush()
    // Rows whose values really change (the all-NULL last row takes the all-NULL row 0: no change).
    const changing = read.filter(
      (row, r) => JSON.stringify(row) !== JSON.stringify(read[(r + 1) % read.length]),
    ).length
    expect(report.updated).toBe(changing)
    expect(changing).toBe(read.length - 1)
    await check((r) => read[(r + 1) % read.length]!)
    // Nothing changed since: the next flush has nothing to write (values compare exactly).
    expect((await fresh.flush()).statements).toBe(0)
  })
})
