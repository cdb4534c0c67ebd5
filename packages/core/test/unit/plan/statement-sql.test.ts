import { describe, expect, it } from 'vitest'
import { deleteSql } from '../../../src/plan/sql/delete-sql.ts'
import { insertSql } from '../../../src/plan/sql/insert-sql.ts'
import { updateSql } from '../../../src/plan/sql/update-sql.ts'
import { onConflictSql } from '../../../src/plan/sql/upsert-sql.ts'
import { statementSql } from '../../../src/plan/statements/statement-sql.ts'
import { library } from './fixtures.ts'

describe('statementSql', () => {
  const table = library.tables.get('author')!
  const [a, b, c] = ['id', 'name', 'fav_book_id']

  it('is the text the SQL builders give for each shape, whatever was asked before', () => {
    const upsert = { conflict: [a!], update: [b!] }
    for (let round = 0; round < 2; round++) {
      expect(statementSql(table, 'insert', [a!, b!], false, undefined)).toBe(insertSql(table, [a!, b!]))
      expect(statementSql(table, 'insert', [a!, b!], false, upsert)).toBe(
        insertSql(table, [a!, b!]) + onConflictSql(upsert, false, table),
      )
      expect(statementSql(table, 'insert', [a!, b!], false, { conflict: [a!], update: [] })).toBe(
        insertSql(table, [a!, b!]) + onConflictSql({ conflict: [a!], update: [] }, false, table),
      )
      expect(statementSql(table, 'update', [b!], false, undefined)).toBe(updateSql(table, [b!], false))
      expect(statementSql(table, 'update', [b!], true, undefined)).toBe(updateSql(table, [b!], true))
      expect(statementSql(table, 'update', [b!, c!], false, undefined)).toBe(
        updateSql(table, [b!, c!], false),
      )
      expect(statementSql(table, 'delete', [], false, undefined)).toBe(deleteSql(table))
    }
  })

  it('tells column lists apart that would join to the same text with a comma', () => {
    expect(statementSql(table, 'insert', [a!], false, undefined)).not.toBe(
      statementSql(table, 'insert', [a!, b!], false, undefined),
    )
  })
})
