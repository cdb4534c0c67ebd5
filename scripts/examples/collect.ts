import ts from 'typescript'

/** One `@example` of a public declaration. */
export interface Example {
  readonly pkg: string
  readonly symbol: string
  readonly file: string
  readonly line: number
  readonly code: string
}

/**
 * The `@example`s of what `entry` (a package's index.ts) exports: each exported declaration's, and
 * for a class its public members' (constructors marked `@internal` and private members left out).
 */
export function collectExamples(program: ts.Program, pkg: string, entry: string): Example[] {
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(entry)
  if (source === undefined) throw new Error(`${entry} is not in the program`)
  const moduleSymbol = checker.getSymbolAtLocation(source)
  if (moduleSymbol === undefined) throw new Error(`${entry} has no exports`)
  const out: Example[] = []
  const seen = new Set<ts.Node>()
  const add = (name: string, node: ts.Node) => {
    if (seen.has(node)) return
    seen.add(node)
    if (ts.getJSDocTags(node).some((t) => t.tagName.text === 'internal')) return
    for (const tag of ts.getJSDocTags(node)) {
      if (tag.tagName.text !== 'example') continue
      const text = typeof tag.comment === 'string' ? tag.comment : ts.getTextOfJSDocComment(tag.comment)
      if (!text?.trim()) continue
      const file = node.getSourceFile()
      const { line } = file.getLineAndCharacterOfPosition(tag.getStart())
      out.push({ pkg, symbol: name, file: file.fileName, line: line + 1, code: text })
    }
  }
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    for (const decl of symbol.declarations ?? []) {
      add(exported.name, decl)
      if (ts.isClassDeclaration(decl)) {
        for (const member of decl.members) {
          const modifiers = ts.getCombinedModifierFlags(member)
          if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue
          if (member.name && ts.isPrivateIdentifier(member.name)) continue
          const memberName = member.name && ts.isIdentifier(member.name) ? member.name.text : 'constructor'
          add(`${exported.name}.${memberName}`, member)
        }
      }
    }
  }
  return out
}
