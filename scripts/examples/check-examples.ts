// Type-checks the `@example`s of the public API: every declaration the public packages export (and a
// class's public members). Each example is compiled as the body of an async function in a module
// that imports everything its package exports and declares what examples commonly use (`em`, `root`,
// `sql`, `pool`, `url`; for @pipeflush/kysely a `DB` with the tables the examples name, for
// @pipeflush/drizzle Drizzle tables of those names in a schema object and a database on it). A name the
// example uses without defining it is declared `any` (so `ada`, `book`, `rows` stand for values the
// reader has); calls, options and results of pipeflush's own API are checked. Run by `npm run
// typecheck`; prints each example that does not compile with where it is, and exits 1.
//
//   node scripts/examples/check-examples.ts
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { collectExamples, type Example } from './collect.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

const PACKAGES: readonly { readonly name: string; readonly entry: string; readonly context: string }[] = [
  {
    name: '@pipeflush/core',
    entry: 'packages/core/src/index.ts',
    context: `import postgres from 'postgres'
import pg from 'pg'
declare const sql: postgres.Sql
declare const pool: pg.Pool
declare const url: string
declare const em: EntityManager
declare const root: EntityManager
declare const rootEm: EntityManager`,
  },
  {
    name: '@pipeflush/kysely',
    entry: 'packages/kysely/src/index.ts',
    context: `import pg from 'pg'
interface DB {
  author: { id: Generated<number>; name: string; version: Generated<number> }
  book: {
    id: Generated<number>
    title: string
    author_id: number
    price: Generated<string>
    publisher_id: number | null
    published_on: string | null
    updated_at: Generated<Date>
  }
  review: { id: Generated<number>; book_id: number; stars: number; body: string | null }
  publisher: { id: Generated<number>; name: string }
  reading: { device: string; recorded_at: Date; measure: number }
  orders: { id: Generated<number>; total: string }
  outbox: { id: Generated<number>; topic: string; order_id: number | null }
  tag: { id: Generated<number>; name: string }
  book_tag: { book_id: number; tag_id: number }
}
interface R {
  author: { books: { table: 'book'; many: true } }
  book: {
    author: { table: 'author'; many: false }
    publisher: { table: 'publisher'; many: false }
    reviews: { table: 'review'; many: true }
  }
  review: { book: { table: 'book'; many: false } }
}
declare const pool: pg.Pool
declare const url: string
declare const factory: EntityManagerFactory<DB, R>
declare const em: TypedEntityManager<DB, R>
declare const id: number
declare const title: string`,
  },
  {
    name: '@pipeflush/drizzle',
    entry: 'packages/drizzle/src/index.ts',
    context: `import pg from 'pg'
import { drizzle } from 'drizzle-orm/node-postgres'
import { eq } from 'drizzle-orm'
import { lt } from 'drizzle-orm'
import { relations } from 'drizzle-orm'
import { integer } from 'drizzle-orm/pg-core'
import { numeric } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { serial } from 'drizzle-orm/pg-core'
import { text } from 'drizzle-orm/pg-core'
import { timestamp } from 'drizzle-orm/pg-core'
const authors = pgTable('author', { id: serial().primaryKey(), name: text().notNull(), version: integer().notNull().default(1) })
const publishers = pgTable('publisher', { id: serial().primaryKey(), name: text().notNull().unique() })
const books = pgTable('book', {
  id: serial().primaryKey(),
  title: text().notNull(),
  authorId: integer('author_id').notNull().references(() => authors.id),
  publisherId: integer('publisher_id').references(() => publishers.id),
  price: numeric().notNull().default('0'),
  updatedAt: timestamp('updated_at').notNull().defaultNow(),
  version: integer().notNull().default(1),
})
const reviews = pgTable('review', { id: serial().primaryKey(), bookId: integer('book_id').notNull().references(() => books.id), stars: integer().notNull() })
const orders = pgTable('orders', { id: serial().primaryKey(), total: numeric().notNull() })
const outbox = pgTable('outbox', { id: serial().primaryKey(), topic: text().notNull(), orderId: integer('order_id') })
const authorsRelations = relations(authors, ({ many }) => ({ books: many(books) }))
const booksRelations = relations(books, ({ one, many }) => ({
  author: one(authors, { fields: [books.authorId], references: [authors.id] }),
  reviews: many(reviews),
}))
const reviewsRelations = relations(reviews, ({ one }) => ({ book: one(books, { fields: [reviews.bookId], references: [books.id] }) }))
const schema = { authors, publishers, books, reviews, orders, outbox, authorsRelations, booksRelations, reviewsRelations }
declare const db: ReturnType<typeof drizzle<typeof schema, pg.Pool>>
declare const url: string
declare const factory: EntityManagerFactory<typeof schema>
declare const em: DrizzleEntityManager<typeof schema>
declare const id: number
declare const title: string`,
  },
  {
    name: '@pipeflush/testkit',
    entry: 'packages/testkit/src/index.ts',
    context: `declare const url: string`,
  },
]

const config = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    },
  },
)!
const options: ts.CompilerOptions = {
  ...config.options,
  noEmit: true,
  noUnusedLocals: false,
  noUnusedParameters: false,
}
const program = ts.createProgram(config.fileNames, options)

/** The names a package exports, as values or as types only. */
function exportedNames(entry: string): { values: string[]; types: string[] } {
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, entry))!)!
  const values: string[] = []
  const types: string[] = []
  for (const s of checker.getExportsOfModule(module)) {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s
    ;(target.flags & ts.SymbolFlags.Value ? values : types).push(s.name)
  }
  return { values, types }
}

/** An example's own import lines (kept at the module's top) and the names they import. */
function splitImports(code: string): { imports: string[]; body: string; names: Set<string> } {
  const imports: string[] = []
  const body: string[] = []
  const names = new Set<string>()
  for (const line of code.split('\n')) {
    // The reader's own modules (`./db.ts`): what they give is the context's.
    if (/^\s*import\s.*\sfrom\s+['"]\./.test(line)) continue
    if (/^\s*import\s/.test(line)) {
      imports.push(line)
      const clause = /^\s*import\s+(?:type\s+)?(.*?)\s+from\s/.exec(line)?.[1] ?? ''
      for (const part of clause.replace(/[{}]/g, ',').split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop()
        if (name && name !== '*') names.add(name)
      }
    } else body.push(line)
  }
  return { imports, body: body.join('\n'), names }
}

const fileName = (i: number) => join(root, 'scripts', 'examples', `.example-${i}.ts`)

/** The module an example is compiled as, with `declared` names declared `any`. */
function moduleOf(example: Example, declared: ReadonlySet<string>): string {
  const pkg = PACKAGES.find((p) => p.name === example.pkg)!
  const { imports, body, names } = splitImports(example.code)
  const { values, types } = exportedNames(pkg.entry)
  const own = [
    ...values.filter((n) => !names.has(n)),
    ...types.filter((n) => !names.has(n)).map((n) => `type ${n}`),
  ]
  const context = pkg.context
    .split('\n')
    .filter((line) => {
      const declaredName = /^(?:declare const|import|import type) \{? ?(\w+)/.exec(line)
      return !(declaredName && names.has(declaredName[1]!))
    })
    .join('\n')
  return [
    ...imports,
    `import { ${own.join(', ')} } from '${pkg.name}'`,
    context,
    ...[...declared].map((n) => `declare const ${n}: any\ntype ${n} = any`),
    'export async function example(): Promise<void> {',
    body,
    '}',
  ].join('\n')
}

const examples = PACKAGES.flatMap((p) => collectExamples(program, p.name, join(root, p.entry)))
const declared = examples.map(() => new Set<string>())
let failures: { example: Example; messages: string[] }[] = []
for (let pass = 0; pass < 4; pass++) {
  const sources = new Map(examples.map((e, i) => [fileName(i), moduleOf(e, declared[i]!)]))
  const host = ts.createCompilerHost(options)
  const read = host.readFile.bind(host)
  const exists = host.fileExists.bind(host)
  host.readFile = (f) => sources.get(f) ?? read(f)
  host.fileExists = (f) => sources.has(f) || exists(f)
  const getSource = host.getSourceFile.bind(host)
  host.getSourceFile = (f, lang, onError, create) =>
    sources.has(f) ? ts.createSourceFile(f, sources.get(f)!, lang, true) : getSource(f, lang, onError, create)
  const checking = ts.createProgram([...sources.keys()], options, host, program)
  failures = []
  let added = false
  examples.forEach((example, i) => {
    const file = checking.getSourceFile(fileName(i))!
    const diagnostics = [...checking.getSyntacticDiagnostics(file), ...checking.getSemanticDiagnostics(file)]
    const messages: string[] = []
    for (const d of diagnostics) {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n')
      const unknown = /^Cannot find name '(\w+)'/.exec(text)
      if (unknown && (d.code === 2304 || d.code === 2552 || d.code === 2582)) {
        declared[i]!.add(unknown[1]!)
        added = true
        continue
      }
      messages.push(text)
    }
    if (messages.length > 0) failures.push({ example, messages })
  })
  if (!added) break
}

for (const { example, messages } of failures) {
  console.error(`${relative(root, example.file)}:${example.line} (${example.symbol}):`)
  for (const m of messages) console.error(`  ${m.split('\n').join('\n  ')}`)
}
console.log(`${examples.length} examples of the public API, ${failures.length} that do not compile`)
if (failures.length > 0) process.exitCode = 1
