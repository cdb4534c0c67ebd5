import { defineSchema, relationsOf } from '@pipeflush/core'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'
import { relationsTypeSource } from '../../src/index.ts'

/** Tables and columns whose names need escaping in a string literal, as quoted PostgreSQL names may. */
const schema = defineSchema({
  user: { columns: { id: 'int4' }, primaryKey: ['id'] },
  'Order\nLine': {
    columns: {
      id: 'int4',
      user: 'int4',
      "we'ird\\id": 'int4',
      'new\r\nline_id': 'int4',
      'sep\u2028x_id': 'int4',
    },
    primaryKey: ['id'],
    foreignKeys: [
      { columns: ['user'], references: 'user' },
      { columns: ["we'ird\\id"], references: 'user' },
      { columns: ['new\r\nline_id'], references: 'user' },
      { columns: ['sep\u2028x_id'], references: 'user' },
    ],
  },
  'a"b': {
    columns: { id: 'int4', 'line\u2029id': 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['line\u2029id'], references: 'Order\nLine' }],
  },
})

/** The names of a property or a string literal type, as TypeScript reads them. */
function nameOf(node: ts.Node): string {
  if (ts.isIdentifier(node) || ts.isStringLiteral(node)) return node.text
  if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) return node.literal.text
  throw new Error(`unexpected ${ts.SyntaxKind[node.kind]}`)
}

/** The relations the source declares, read back by TypeScript's parser: table → relation → target. */
function readBack(source: string): Record<string, Record<string, string>> {
  const file = ts.createSourceFile('relations.ts', source, ts.ScriptTarget.ESNext, true)
  const declared = file.statements.find(ts.isInterfaceDeclaration)!
  const out: Record<string, Record<string, string>> = {}
  for (const table of declared.members) {
    if (!ts.isPropertySignature(table) || table.type === undefined || !ts.isTypeLiteralNode(table.type))
      throw new Error('not a table')
    const relations: Record<string, string> = {}
    for (const relation of table.type.members) {
      if (
        !ts.isPropertySignature(relation) ||
        relation.type === undefined ||
        !ts.isTypeLiteralNode(relation.type)
      )
        throw new Error('not a relation')
      const target = relation.type.members.find((m) => m.name !== undefined && nameOf(m.name) === 'table')
      relations[nameOf(relation.name)] = nameOf((target as ts.PropertySignature).type!)
    }
    out[nameOf(table.name)] = relations
  }
  return out
}

describe('relationsTypeSource', () => {
  test('escapes table and relation names: a line break, a quote or a backslash in one is valid TypeScript', () => {
    const source = relationsTypeSource(schema)
    const { diagnostics } = ts.transpileModule(source, { reportDiagnostics: true, compilerOptions: {} })
    expect(diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([])
    // Read back by TypeScript, the names are the schema's, as written.
    const expected: Record<string, Record<string, string>> = {}
    for (const table of schema.tables.keys()) {
      const relations = [...relationsOf(schema, table).values()]
      if (relations.length > 0) expected[table] = Object.fromEntries(relations.map((r) => [r.name, r.target]))
    }
    expect(readBack(source)).toEqual(expected)
    const names = Object.values(expected).flatMap((r) => Object.keys(r))
    expect(names.some((n) => n.includes('\r\n'))).toBe(true)
    expect(names.some((n) => n.includes('\u2028'))).toBe(true)
    expect(names.some((n) => n.includes("'") && n.includes('\\'))).toBe(true)
    expect(Object.keys(expected)).toEqual(expect.arrayContaining(['Order\nLine', 'a"b']))
  })

  test('plain names are written as before', () => {
    expect(relationsTypeSource(schema)).toContain('  user: {\n')
    expect(relationsTypeSource(schema)).toContain("{ table: 'user'; many: false }")
  })
})
