import { describe, expect, test } from 'vitest'
import { normalizeSql, splitStatements } from '../../../src/index.ts'

describe('splitStatements', () => {
  test.each([
    ['select 1', ['select 1']],
    ['begin; select 1;\n commit;', ['begin', 'select 1', 'commit']],
    ["insert into t values ('a;b', 'it''s;')", ["insert into t values ('a;b', 'it''s;')"]],
    ["select E'\\';'; select 2", ["select E'\\';'", 'select 2']],
    ['select "a;b" from t; select 2', ['select "a;b" from t', 'select 2']],
    ['select $$;$$, $f$ ; $f$; select $1', ['select $$;$$, $f$ ; $f$', 'select $1']],
    ['select 1 -- ;\n; /* ; /* ; */ ; */ select 2', ['select 1 -- ;', '/* ; /* ; */ ; */ select 2']],
    [';; -- nothing\n;', []],
  ])('%j', (text, statements) => {
    expect(splitStatements(text)).toEqual(statements)
  })
})

describe('normalizeSql', () => {
  test('drops comments, collapses whitespace outside literals', () => {
    expect(normalizeSql("  select\n\t1 ,  'a  b' -- c\n /* d */ from   t  ")).toBe("select 1 , 'a  b' from t")
  })
})
