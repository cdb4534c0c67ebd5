import type { ColumnModel, ScalarType } from '../../../src/model/model.ts'
import { MIN_TIMESTAMP_MS } from '../../../src/values/calendar.ts'
import { quoteIdentifier } from '../../../src/values/index.ts'

/** A value to write and what reading it back must give (the same value unless `read` is given). */
export interface Sample {
  readonly write: unknown
  readonly read: unknown
}

function s(write: unknown, ...read: [unknown?]): Sample {
  return { write, read: read.length === 0 ? write : read[0] }
}

export const ENUM_LABELS = [
  'sad',
  'ok',
  'happy',
  'with space',
  'quote"d',
  "it's",
  'NULL',
  'back\\slash',
  'comma,brace}',
]
export const ENUM_SQL = `"public".${quoteIdentifier('Mood Type')}`

const dates = [
  new Date('2024-01-02T03:04:05.678Z'),
  new Date(0),
  new Date(-1),
  new Date('0001-01-01T00:00:00Z'),
  new Date('0000-12-31T23:59:59.999Z'),
  new Date('-000043-03-15T12:00:00Z'),
  new Date(MIN_TIMESTAMP_MS),
  new Date('+010000-01-01T00:00:00Z'),
  new Date(8.64e15 - 1),
  new Date(8.64e15),
  new Date(-8.64e15),
].map((d) => s(d))

const jsonSamples = [
  s({ b: 1, a: [1, 'x', null, true, { c: -1.5e-7 }] }),
  s('str with "quotes", \\ backslash, {braces}, 😀 and \u0001'),
  s(0),
  s(-0, 0),
  s(false),
  s([]),
  s({}),
  s([[1, 2], [3]]),
  s(12345.678),
  s(0.1 + 0.2),
  s(1e21),
  s(5e-324),
  s(2 ** 53 + 2),
  s({ '': 'empty key', 'k"ey': 'NULL' }),
  s('NULL'),
  s(null, null),
]

/** One column per scalar type, with the values a round trip must preserve. */
export const TYPES: readonly {
  readonly type: ScalarType
  readonly sql: string
  readonly extra?: Partial<ColumnModel>
  readonly samples: readonly Sample[]
}[] = [
  { type: 'int2', sql: 'int2', samples: [s(-32768), s(32767), s(0), s(-0, 0), s(1)] },
  { type: 'int4', sql: 'int4', samples: [s(-2147483648), s(2147483647), s(0), s(7)] },
  {
    type: 'int8',
    sql: 'int8',
    samples: [
      s('-9223372036854775808'),
      s('9223372036854775807'),
      s(5n, '5'),
      s(-9223372036854775808n, '-9223372036854775808'),
      s(42, '42'),
      s(Number.MIN_SAFE_INTEGER, '-9007199254740991'),
      s('007', '7'),
      s('0'),
    ],
  },
  {
    type: 'numeric',
    sql: 'numeric',
    samples: [
      s('0'),
      s('1.50'),
      s('-0.000001'),
      s(0.1, '0.1'),
      s(-0, '0'),
      s(1e21, '1000000000000000000000'),
      s(1e-7, '0.0000001'),
      s(12345678901234567890n, '12345678901234567890'),
      s('1.5e3', '1500'),
      s('1.50e1', '15.0'),
      s('-0.00', '0.00'),
      s('123456789012345678901234567890.123456789012345678901234567890'),
      s('1e-20', '0.00000000000000000001'),
      s('NaN'),
      s('Infinity'),
      s('-Infinity'),
    ],
  },
  {
    type: 'float4',
    sql: 'float4',
    samples: [
      s(1.5),
      s(-0),
      s(0),
      s(0.1),
      s(123456.7),
      s(Math.fround(0.1), 0.1),
      s(16777217, 16777216),
      s(3.4028234663852886e38, 3.4028235e38),
      s(1e-45, 1e-45),
      s(-2.5e-40, Number(Math.fround(-2.5e-40).toPrecision(2))),
    ],
  },
  {
    type: 'float8',
    sql: 'float8',
    samples: [
      s(0.1),
      s(-0),
      s(0),
      s(Math.PI),
      s(Number.MAX_VALUE),
      s(-Number.MAX_VALUE),
      s(5e-324),
      s(-1e-300),
      s(1e21),
      s(2 ** 53 + 2),
      s(0.1 + 0.2),
    ],
  },
  {
    type: 'text',
    sql: 'text',
    samples: [
      s(''),
      s(' '),
      s('NULL'),
      s('null'),
      s('a"b'),
      s('c\\d'),
      s('\\'),
      s('"'),
      s("it's"),
      s("''"),
      s('{x,y}'),
      s('[0:1]={1}'),
      s(' lead'),
      s('trail '),
      s('héllo 😀 日本語'),
      s('\t\n\r\u0001\u007f'),
      s('\\x00'),
      s("E'\\'"),
      s('x'.repeat(5000)),
    ],
  },
  {
    type: 'varchar',
    sql: 'varchar(5)',
    extra: { maxLength: 5 },
    samples: [s(''), s('abcde'), s('😀😀😀😀😀'), s('a b '), s('NULL')],
  },
  {
    type: 'bpchar',
    sql: 'char(4)',
    extra: { maxLength: 4 },
    samples: [s('ab'), s('abcd'), s(''), s('😀'), s(' x  ', ' x'), s('"{,}'), s('   ', '')],
  },
  { type: 'bool', sql: 'bool', samples: [s(true), s(false)] },
  {
    type: 'date',
    sql: 'date',
    samples: [
      s('2024-02-29'),
      s(new Date('2024-01-02T23:59:59.999Z'), '2024-01-02'),
      s(new Date('-000043-03-15T00:00:00Z'), '0044-03-15 BC'),
      s('0044-03-15 BC'),
      s('10000-01-01'),
      s('infinity'),
      s('-infinity'),
      s('4714-11-24 BC'),
      s('5874897-12-31'),
      s('1970-01-01'),
    ],
  },
  { type: 'timestamp', sql: 'timestamp', samples: dates },
  { type: 'timestamptz', sql: 'timestamptz', samples: dates },
  {
    type: 'uuid',
    sql: 'uuid',
    samples: [
      s('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
      s('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'),
      s('00000000-0000-0000-0000-000000000000'),
      s('ffffffff-ffff-ffff-ffff-ffffffffffff'),
    ],
  },
  { type: 'json', sql: 'json', samples: jsonSamples.filter((x) => x.write !== null) },
  { type: 'jsonb', sql: 'jsonb', samples: jsonSamples.filter((x) => x.write !== null) },
  {
    type: 'bytea',
    sql: 'bytea',
    samples: [
      s(Buffer.alloc(0)),
      s(Buffer.from([0, 1, 255])),
      s(Buffer.from('\\"{},NULL \'')),
      s(new Uint8Array([9, 8, 7]).subarray(1), Buffer.from([8, 7])),
      s(Buffer.from(Array.from({ length: 256 }, (_, i) => i))),
    ],
  },
  { type: 'enum', sql: ENUM_SQL, extra: { enumLabels: ENUM_LABELS }, samples: ENUM_LABELS.map((l) => s(l)) },
]

export interface TestColumn {
  readonly model: ColumnModel
  /** The DDL type. */
  readonly ddl: string
  readonly samples: readonly Sample[]
}

function model(
  name: string,
  type: ScalarType,
  sqlType: string,
  isArray: boolean,
  extra: Partial<ColumnModel>,
): ColumnModel {
  return {
    name,
    type,
    sqlType,
    isArray,
    nullable: true,
    hasDefault: false,
    identity: null,
    sequence: null,
    generated: false,
    ...extra,
  }
}

/** Array samples built from the scalar ones: empty, all-null, NULLs first, last and between. */
function arraySamples(samples: readonly Sample[], type: ScalarType): Sample[] {
  const [a = samples[0]!, b = a] = samples
  const elems = (xs: (Sample | null)[]): Sample => ({
    write: xs.map((x) => (x === null ? null : x.write)),
    read: xs.map((x) => (x === null ? null : x.read)),
  })
  const out = [
    elems([]),
    elems([null]),
    elems([null, null]),
    elems([a, null, b]),
    elems([null, a]),
    elems([a, null]),
    elems([...samples]),
    elems([...samples.slice().reverse(), null]),
  ]
  if (type === 'json' || type === 'jsonb') out.push(s([[1, 2], null, { a: [null] }, []]))
  return out
}

/** A scalar and an array column for every type. */
export const COLUMNS: readonly TestColumn[] = TYPES.flatMap(({ type, sql, extra = {}, samples }) => [
  { model: model(`c_${type}`, type, type === 'enum' ? ENUM_SQL : type, false, extra), ddl: sql, samples },
  {
    model: model(`a_${type}`, type, `${type === 'enum' ? ENUM_SQL : type}[]`, true, extra),
    ddl: `${sql}[]`,
    samples: arraySamples(samples, type),
  },
])

/**
 * The rows to write: row 0 and the last row are all NULL; column k holds its samples starting at row
 * 1 + (k % 3), with a NULL after every second sample, NULL elsewhere.
 */
export function buildRows(columns: readonly TestColumn[]): { write: unknown[][]; read: unknown[][] } {
  const placed = columns.map((c, k) => {
    const cells: (Sample | null)[] = Array.from({ length: 1 + (k % 3) }, () => null)
    c.samples.forEach((x, i) => {
      cells.push(x)
      if (i % 2 === 1) cells.push(null)
    })
    return cells
  })
  const count = Math.max(...placed.map((p) => p.length)) + 1
  const write: unknown[][] = []
  const read: unknown[][] = []
  for (let r = 0; r < count; r++) {
    const cells = placed.map((p) => p[r] ?? null)
    write.push(cells.map((cell) => (cell === null ? null : cell.write)))
    read.push(cells.map((cell) => (cell === null ? null : cell.read)))
  }
  return { write, read }
}
