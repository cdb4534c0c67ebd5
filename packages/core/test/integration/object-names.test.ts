import { defineSchema } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { expect, test } from 'vitest'

// The names PostgreSQL makes for a serial column's sequence and a foreign key (`<table>_<column>_seq`,
// `<table>_<column>_fkey`) are cut to 63 bytes, at a character's end: a declared schema guesses them
// so (messages name the sequence, constraints are matched by name). They were cut to 63 UTF-16 units,
// so a table named in a script of two-byte letters got a sequence name the server never made (found
// by an outside probe).
const db = useTestDatabase()

const NAMES = [
  ['ö'.repeat(30) + 'x', 'id'], // 61 bytes, 31 units
  ['ö'.repeat(20), 'ä'.repeat(20)], // both cut, by bytes
  ['表'.repeat(20), 'id'], // three-byte letters
  ['t'.repeat(40), 'é'.repeat(15)],
  ['plain', 'id'],
] as const

test.each(NAMES)(
  'a serial sequence and a foreign key of %s.%s are named as the server names them',
  async (table, column) => {
    const parent = `names_parent_${NAMES.findIndex(([t]) => t === table)}`
    await db.sql.unsafe(`
    drop table if exists "${table}"; drop table if exists "${parent}";
    create table "${parent}" (id int primary key);
    create table "${table}" ("${column}" serial primary key, ref int references "${parent}" (id));
  `)
    const [server] = await db.sql.unsafe<{ seq: string; fkey: string }[]>(
      `select pg_get_serial_sequence($1, $2) as seq,
       (select conname from pg_constraint where conrelid = $1::regclass and contype = 'f') as fkey`,
      [`"${table}"`, column],
    )
    const schema = defineSchema({
      [parent]: { columns: { id: 'int4' }, primaryKey: ['id'] },
      [table]: {
        columns: { [column]: { type: 'int4', serial: true }, ref: { type: 'int4', nullable: true } },
        primaryKey: [column],
        foreignKeys: [{ columns: ['ref'], references: parent }],
      },
    })
    const model = schema.tables.get(table)!
    const guessed = model.columns.find((c) => c.name === column)?.sequence
    // Compared as the relations they name (pipeflush quotes every part, the server only where needed).
    const [same] = await db.sql.unsafe<{ found: boolean }[]>(
      'select to_regclass($1) is not null and to_regclass($1) = to_regclass($2) as found',
      [guessed!, server!.seq],
    )
    expect(same?.found, `${guessed} is ${server!.seq}`).toBe(true)
    expect(model.foreignKeys[0]?.name).toBe(server!.fkey)
  },
)
