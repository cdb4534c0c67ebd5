import { describe, expect, it } from 'vitest'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import { buildColumnModel, buildSchemaModel, buildTableModel } from '../../../src/schema/build-table.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { ownedSequence, sequenceOwner } from '../../../src/schema/owned-sequence.ts'

function configError(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    expect(e).toMatchObject({ code: 'INVALID_CONFIG' })
    return (e as Error).message
  }
  throw new Error('expected INVALID_CONFIG')
}

describe('defineSchema', () => {
  const schema = defineSchema(
    {
      author: {
        columns: {
          id: { type: 'int8', identity: 'by default', sequence: 'public.author_id_seq' },
          name: 'text',
          version: { type: 'int4', default: true },
        },
        primaryKey: ['id'],
        version: 'version',
      },
      book: {
        columns: {
          id: 'uuid',
          author_id: 'int8',
          title: { type: 'text', nullable: true },
          tags: 'text[]',
          code: 'bpchar(3)',
        },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['author_id'], references: 'author', onDelete: 'cascade' }],
        uniques: [
          ['code'],
          { columns: ['title', 'author_id'], name: 'book_title_once', nullsNotDistinct: true },
        ],
      },
      'audit.entry': {
        columns: {
          id: { type: 'int8', identity: 'always' },
          mood: { type: 'enum', enumLabels: ['sad', 'ok'], sqlType: '"public"."mood"' },
          moods: { type: 'enum[]', enumLabels: ['sad', 'ok'], sqlType: '"public"."mood"', nullable: true },
          note: { type: 'varchar(20)', nullable: true },
          total: { type: 'numeric', generated: true, nullable: true },
          book_id: 'uuid',
        },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['book_id'], references: 'book', initiallyDeferred: true }],
      },
    },
    { schema: 'app' },
  )

  it('builds tables with quoted names, columns in order and an index by name', () => {
    const book = schema.tables.get('book')!
    expect(book).toMatchObject({
      key: 'book',
      schema: 'app',
      name: 'book',
      sqlName: '"app"."book"',
      primaryKey: ['id'],
    })
    expect(book.columns.map((c) => c.name)).toEqual(['id', 'author_id', 'title', 'tags', 'code'])
    expect(book.columnsByName.get('title')).toBe(book.columns[2])
    expect(schema.tables.get('audit.entry')).toMatchObject({
      schema: 'audit',
      name: 'entry',
      sqlName: '"audit"."entry"',
    })
  })

  it('reads string shorthands as NOT NULL columns without default', () => {
    expect(schema.tables.get('book')!.columnsByName.get('tags')).toEqual({
      name: 'tags',
      type: 'text',
      sqlType: 'text[]',
      isArray: true,
      nullable: false,
      hasDefault: false,
      identity: null,
      sequence: null,
      generated: false,
    })
    expect(schema.tables.get('book')!.columnsByName.get('code')).toMatchObject({
      type: 'bpchar',
      sqlType: 'bpchar',
      maxLength: 3,
    })
  })

  it('reads identity, sequences, defaults, enums and generated columns', () => {
    const author = schema.tables.get('author')!
    expect(author.columnsByName.get('id')).toMatchObject({
      identity: 'by default',
      sequence: '"public"."author_id_seq"',
      hasDefault: true,
    })
    expect(author.columnsByName.get('version')).toMatchObject({ hasDefault: true, nullable: false })
    expect(author.versionColumn).toBe('version')
    const entry = schema.tables.get('audit.entry')!
    expect(entry.columnsByName.get('id')).toMatchObject({
      identity: 'always',
      sequence: '"audit"."entry_id_seq"',
    })
    expect(entry.columnsByName.get('mood')).toMatchObject({
      type: 'enum',
      sqlType: '"public"."mood"',
      enumLabels: ['sad', 'ok'],
    })
    expect(entry.columnsByName.get('moods')).toMatchObject({ sqlType: '"public"."mood"[]', isArray: true })
    expect(entry.columnsByName.get('note')).toMatchObject({ type: 'varchar', maxLength: 20, nullable: true })
    expect(entry.columnsByName.get('total')).toMatchObject({ generated: true, hasDefault: true })
  })

  it("defaults foreign keys to the target's primary key and PostgreSQL's names", () => {
    expect(schema.tables.get('book')!.foreignKeys).toEqual([
      {
        name: 'book_author_id_fkey',
        columns: ['author_id'],
        target: 'author',
        targetColumns: ['id'],
        deferrable: false,
        initiallyDeferred: false,
        onDelete: 'cascade',
      },
    ])
    expect(schema.tables.get('audit.entry')!.foreignKeys[0]).toMatchObject({
      name: 'entry_book_id_fkey',
      deferrable: true,
      initiallyDeferred: true,
      onDelete: 'no action',
    })
    expect(schema.tables.get('book')!.uniques).toEqual([
      { name: 'book_code_key', columns: ['code'] },
      { name: 'book_title_once', columns: ['title', 'author_id'], nullsNotDistinct: true },
    ])
  })

  it('shortens long default names like PostgreSQL and numbers clashes', () => {
    const long = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    const s = defineSchema({
      [long]: {
        columns: { id: 'int4', [`${long}_ref`]: 'int4', other: 'int4' },
        primaryKey: ['id'],
        foreignKeys: [
          { columns: [`${long}_ref`], references: long },
          { columns: ['other'], references: long, name: 'x_other_fkey' },
        ],
      },
      x: {
        columns: { id: 'int4', other: 'int4', other2: 'int4' },
        primaryKey: ['id'],
        foreignKeys: [
          { columns: ['other'], references: 'x' },
          { columns: ['other2'], references: 'x', name: 'x_other_fkey1' },
        ],
      },
    })
    const name = s.tables.get(long)!.foreignKeys[0]!.name
    // What PostgreSQL 15 named it: 57 characters for the two parts, the longer one shortened first.
    expect(name).toBe(`${'a'.repeat(29)}_${'a'.repeat(28)}_fkey`)
    expect(name).toHaveLength(63)
    expect(s.tables.get('x')!.foreignKeys.map((fk) => fk.name)).toEqual(['x_other_fkey2', 'x_other_fkey1'])
  })

  it('declares a serial column: its sequence named as PostgreSQL names it, found from the column when ids are drawn', () => {
    const declared = defineSchema({
      thing: { columns: { id: { type: 'int8', serial: true }, name: 'text' }, primaryKey: ['id'] },
    })
    const id = declared.tables.get('thing')?.columnsByName.get('id')
    expect(id).toMatchObject({ sequence: '"public"."thing_id_seq"', hasDefault: true, identity: null })
    expect(sequenceOwner(id!.sequence!)).toEqual({ table: '"public"."thing"', column: 'id' })
    expect(() =>
      defineSchema({ thing: { columns: { id: { type: 'text', serial: true } }, primaryKey: ['id'] } }),
    ).toThrow(/serial column "id" must be int2, int4 or int8/)
  })

  it('declares a sequence DEFAULT of a key column or key part (implying a default), views and materialized views', () => {
    const declared = defineSchema({
      customer: {
        columns: { id: { type: 'int4', sequence: 'customer_customer_id_seq' }, name: 'text' },
        primaryKey: ['id'],
      },
      payment: {
        columns: { day: 'date', id: { type: 'int4', sequence: 'payment_payment_id_seq' } },
        primaryKey: ['day', 'id'],
        foreignKeys: [{ columns: ['id'], references: 'customer' }],
      },
      customer_list: { kind: 'view', columns: { id: 'int4', name: 'text' } },
      sales: { kind: 'materialized view', columns: { total: 'numeric' }, primaryKey: ['total'] },
    })
    expect(declared.tables.get('customer')?.columnsByName.get('id')).toMatchObject({
      sequence: '"public"."customer_customer_id_seq"',
      hasDefault: true,
      identity: null,
    })
    expect(declared.tables.get('payment')?.columnsByName.get('id')?.sequence).toBe(
      '"public"."payment_payment_id_seq"',
    )
    expect(declared.tables.get('customer')?.kind).toBe('table')
    expect(declared.tables.get('customer_list')).toMatchObject({
      kind: 'view',
      primaryKey: [],
      copyable: false,
    })
    expect(declared.tables.get('sales')).toMatchObject({ kind: 'materialized view', primaryKey: ['total'] })
  })

  it('rejects a table without a key, a view with keys to other tables or a version, a key to a view, an unknown kind', () => {
    expect(configError(() => defineSchema({ t: { columns: { id: 'int4' } } }))).toContain(
      'a primary key is required',
    )
    expect(
      configError(() =>
        defineSchema({
          t: { columns: { id: 'int4' }, primaryKey: ['id'] },
          v: { kind: 'view', columns: { id: 'int4' }, foreignKeys: [{ columns: ['id'], references: 't' }] },
        }),
      ),
    ).toContain('a view has no foreign keys')
    expect(
      configError(() =>
        defineSchema({ v: { kind: 'view', columns: { id: 'int4', n: 'int4' }, version: 'n' } }),
      ),
    ).toContain('a view is read-only: it has no version column')
    expect(
      configError(() =>
        defineSchema({
          t: {
            columns: { id: 'int4' },
            primaryKey: ['id'],
            foreignKeys: [{ columns: ['id'], references: 'v', targetColumns: ['id'] }],
          },
          v: { kind: 'view', columns: { id: 'int4' } },
        }),
      ),
    ).toContain('references view "v"')
    const badKind = { t: { kind: 'sequence', columns: { id: 'int4' }, primaryKey: ['id'] } }
    // @ts-expect-error: 'sequence' is not a kind
    expect(configError(() => defineSchema(badKind))).toContain('unknown kind "sequence"')
  })

  it('rejects an inconsistent spec with INVALID_CONFIG', () => {
    expect(
      configError(() =>
        defineSchema({
          book: {
            columns: { id: 'int4', a: 'int4' },
            primaryKey: ['id'],
            // @ts-expect-error: 'writer' is not a table of the spec
            foreignKeys: [{ columns: ['a'], references: 'writer' }],
          },
        }),
      ),
    ).toContain('unknown table "writer"')
    expect(
      configError(() =>
        defineSchema({
          book: {
            columns: { id: 'int4' },
            primaryKey: ['id'],
            // @ts-expect-error: 'author' is not a column of book
            foreignKeys: [{ columns: ['author'], references: 'book' }],
          },
        }),
      ),
    ).toContain('column "author" does not exist')
    expect(
      configError(() =>
        // @ts-expect-error: 'key' is not a column of book
        defineSchema({ book: { columns: { id: 'int4' }, primaryKey: ['key'] } }),
      ),
    ).toContain('primary key column "key" does not exist')
    expect(configError(() => defineSchema({ book: { columns: { id: 'int4' }, primaryKey: [] } }))).toContain(
      'a primary key is required',
    )
    expect(
      configError(() =>
        defineSchema({ book: { columns: { id: 'int4', v: 'text' }, primaryKey: ['id'], version: 'v' } }),
      ),
    ).toContain('version column "v" must be int2, int4 or int8')
    expect(
      configError(() =>
        defineSchema({
          book: {
            columns: { id: 'int4', v: { type: 'int4', nullable: true } },
            primaryKey: ['id'],
            version: 'v',
          },
        }),
      ),
    ).toContain('must be NOT NULL')
    expect(
      configError(() =>
        defineSchema({
          a: { columns: { id: 'int4', x: 'int4' }, primaryKey: ['id'] },
          b: {
            columns: { id: 'int4', a_id: 'int4' },
            primaryKey: ['id'],
            foreignKeys: [{ columns: ['a_id'], references: 'a', targetColumns: ['y'] }],
          },
        }),
      ),
    ).toContain('unknown column "a"."y"')
    expect(
      configError(() =>
        defineSchema({
          a: { columns: { id: 'int4', x: 'int4' }, primaryKey: ['id'] },
          b: {
            columns: { id: 'int4', a_id: 'int4' },
            primaryKey: ['id'],
            foreignKeys: [{ columns: ['a_id'], references: 'a', targetColumns: ['id', 'x'] }],
          },
        }),
      ),
    ).toContain('has 1 columns but references 2')
  })

  // Misspelled, a property would be dropped without a word: a `foreignKey` list made no foreign key
  // (inserts then sent out of order), a `versionColumn` no optimistic locking.
  it('rejects a property no part of a spec has, naming it and the properties there are', () => {
    const author = { columns: { id: 'int8', v: 'int4' }, primaryKey: ['id'] }
    const cases: [unknown, unknown, string][] = [
      [
        { author: { ...author, versionColumn: 'v' } },
        {},
        'Table "author": the table has no property "versionColumn"; its properties are kind, columns, primaryKey, foreignKeys, uniques, version, schema, name.',
      ],
      [
        {
          author,
          book: {
            columns: { id: 'int8', a: 'int8' },
            primaryKey: ['id'],
            foreignKey: [{ columns: ['a'], references: 'author' }],
          },
        },
        {},
        'Table "book": the table has no property "foreignKey";',
      ],
      [
        { author: { ...author, columns: { id: { type: 'int8', nulable: true } } } },
        {},
        'Table "author": column "id" has no property "nulable"; its properties are type, sql, nullable,',
      ],
      [
        {
          author,
          book: {
            columns: { id: 'int8', a: 'int8' },
            primaryKey: ['id'],
            foreignKeys: [{ columns: ['a'], references: 'author', ondelete: 'cascade' }],
          },
        },
        {},
        'Table "book": a foreign key on (a) has no property "ondelete"; its properties are columns, references, targetColumns, name, deferrable, initiallyDeferred, onDelete.',
      ],
      [
        { author: { ...author, uniques: [{ columns: ['v'], nullsDistinct: false }] } },
        {},
        'Table "author": a unique constraint has no property "nullsDistinct"; its properties are columns, name, nullsNotDistinct.',
      ],
      [
        { author },
        { relationName: {} },
        'defineSchema: unknown option "relationName"; the options are schema, relationNames.',
      ],
    ]
    for (const [spec, options, message] of cases)
      expect(configError(() => defineSchema(spec as never, options as never))).toContain(message)
  })

  it('rejects bad column declarations', () => {
    const unknownType = () =>
      // @ts-expect-error: not a type
      defineSchema({ t: { columns: { id: 'integer' }, primaryKey: ['id'] } })
    expect(configError(unknownType)).toContain('unknown type')
    expect(
      configError(() =>
        defineSchema({ t: { columns: { id: 'int4', m: { type: 'enum' } }, primaryKey: ['id'] } }),
      ),
    ).toContain('needs enumLabels and sqlType')
    expect(
      configError(() =>
        defineSchema({ t: { columns: { id: { type: 'text', identity: 'always' } }, primaryKey: ['id'] } }),
      ),
    ).toContain('identity column "id" must be')
    expect(
      configError(() =>
        defineSchema({
          t: {
            columns: { id: 'int4', a: 'int4', b: 'int4' },
            primaryKey: ['id'],
            foreignKeys: [
              { columns: ['a'], references: 't', name: 'n' },
              { columns: ['b'], references: 't', name: 'n' },
            ],
          },
        }),
      ),
    ).toContain('constraint name "n" is used twice')
  })
})

describe('generatedFrom', () => {
  const declared = () =>
    defineSchema({
      doubled: {
        columns: {
          a: 'int4',
          b: 'text',
          id: { type: 'int4', generated: true, generatedFrom: ['a', 'b'] },
          note: { type: 'text', nullable: true },
          loud: { type: 'text', nullable: true, generated: true, generatedFrom: ['note'] },
        },
        primaryKey: ['id'],
      },
    })

  it("keys each input of a generated key column to it, and no other generated column's", () => {
    const table = declared().tables.get('doubled')!
    expect(table.keyInputs).toEqual(
      new Map([
        ['a', 'id'],
        ['b', 'id'],
      ]),
    )
    expect(table.columnsByName.get('loud')?.generatedFrom).toEqual(['note'])
    expect(
      defineSchema({ t: { columns: { id: 'int4' }, primaryKey: ['id'] } }).tables.get('t'),
    ).not.toHaveProperty('keyInputs')
  })

  it('refuses an update setting one of them before anything is planned, naming the key it generates', () => {
    const update = (set: Record<string, unknown>) => () =>
      planFlush(declared(), {
        inserts: [],
        updates: [{ table: 'doubled', key: { id: 2 }, set }],
        deletes: [],
      })
    expect(update({ b: 'x' })).toThrow(
      expect.objectContaining({
        code: 'INVALID_STATE',
        table: 'doubled',
        column: 'b',
        message: expect.stringContaining('primary key column doubled.id is generated from it'),
      }),
    )
    expect(
      update({ note: 'x' })()
        .waves.flat()
        .map((s) => s.kind),
    ).toEqual(['update'])
  })

  it('refuses inputs that are not other columns, on a column not generated, or not a list of names', () => {
    const spec = (id: Record<string, unknown>) => () =>
      defineSchema({
        t: { columns: { a: 'int4', id: { type: 'int4', ...id } }, primaryKey: ['id'] },
      } as never)
    expect(configError(spec({ generated: true, generatedFrom: ['nope'] }))).toMatch(
      /column "id" is generated from "nope", which is not another column of the table/,
    )
    expect(configError(spec({ generated: true, generatedFrom: ['id'] }))).toMatch(/generated from "id"/)
    expect(configError(spec({ generatedFrom: ['a'] }))).toMatch(
      /column "id" lists the columns it is generated from, but is not generated/,
    )
    expect(configError(spec({ generated: true, generatedFrom: 'a' }))).toMatch(
      /generatedFrom must list column names/,
    )
  })
})

describe('buildTableModel and buildSchemaModel', () => {
  it('derive sqlName and columnsByName, accepting built columns and inputs', () => {
    const table = buildTableModel({
      key: 'sales.order',
      schema: 'sales',
      name: 'Order "x"',
      columns: [
        buildColumnModel({ name: 'id', type: 'int8' }),
        { name: 'lines', type: 'jsonb', nullable: true },
      ],
      primaryKey: ['id'],
    })
    expect(table.sqlName).toBe('"sales"."Order ""x"""')
    expect(table.columnsByName.get('lines')).toMatchObject({
      type: 'jsonb',
      sqlType: 'jsonb',
      nullable: true,
      hasDefault: false,
    })
    expect(table).toMatchObject({ foreignKeys: [], uniques: [], versionColumn: null })
  })

  it('reject duplicate columns, duplicate tables and unknown foreign key targets', () => {
    const column = { name: 'id', type: 'int4' as const }
    expect(
      configError(() =>
        buildTableModel({ schema: 's', name: 't', columns: [column, column], primaryKey: ['id'] }),
      ),
    ).toContain('declared twice')
    const t = buildTableModel({ schema: 's', name: 't', columns: [column], primaryKey: ['id'] })
    expect(configError(() => buildSchemaModel([t, t]))).toContain('declared twice')
    // Two relations of the catalog whose names make one key: both named, not "declared twice".
    const dotted = buildTableModel({
      key: 'user.select',
      schema: 'public',
      name: 'user.select',
      columns: [column],
      primaryKey: ['id'],
    })
    const qualified = buildTableModel({
      key: 'user.select',
      schema: 'user',
      name: 'select',
      columns: [column],
      primaryKey: ['id'],
    })
    const both = configError(() => buildSchemaModel([dotted, qualified]))
    expect(both).toContain('both "public"."user.select" and "user"."select" have this key')
    expect(both).not.toContain('declared twice')
    const child = buildTableModel({
      schema: 's',
      name: 'c',
      columns: [column],
      primaryKey: ['id'],
      foreignKeys: [
        {
          name: 'c_fk',
          columns: ['id'],
          target: 'p',
          targetColumns: ['id'],
          deferrable: false,
          initiallyDeferred: false,
          onDelete: 'no action',
        },
      ],
    })
    expect(configError(() => buildSchemaModel([child]))).toContain('unknown table "p"')
  })
})

describe('ownedSequence', () => {
  it('gives two columns whose names make the same sequence name names of their own, as the server does', () => {
    const long = 'organization_membership_invitation_acceptance_audit_entries'
    const a = ownedSequence('public', `${long}_a`, 'id')
    const b = ownedSequence('public', `${long}_b`, 'id')
    expect(a).not.toBe(b)
    expect(b).toMatch(/_id_seq1"$/)
    expect([sequenceOwner(a)?.table, sequenceOwner(b)?.table]).toEqual([
      `"public"."${long}_a"`,
      `"public"."${long}_b"`,
    ])
    expect([ownedSequence('public', 'a_b', 'c'), ownedSequence('public', 'a', 'b_c')]).toEqual([
      '"public"."a_b_c_seq"',
      '"public"."a_b_c_seq1"',
    ])
    // The same column again: the same name.
    expect(ownedSequence('public', `${long}_b`, 'id')).toBe(b)
  })
})
