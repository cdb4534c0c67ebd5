import type { Answer, ScriptedStatement } from './answers.ts'
import type { ScriptedHandler } from './handlers.ts'

/** What the default answers read and keep: the server's sequences and flush log, each connection's settings. */
export interface DefaultsState {
  /** Per sequence name: the last value drawn (0 before the first). */
  readonly sequences: Map<string, number>
  /** Per flush id: whether the flush log holds it as committed (see {@link defaultHandlers}). */
  readonly flushLog: Map<string, boolean>
  /** The settings of connection `id` (the parameters it was reported, and a few more), lowercase names. */
  settings(connection: number): Readonly<Record<string, string>>
}

/** Array types postgres.js asks for at its first connections: element oid, array oid. */
const ARRAY_TYPES: readonly (readonly [number, number])[] = [
  [16, 1000],
  [17, 1001],
  [20, 1016],
  [21, 1005],
  [23, 1007],
  [25, 1009],
  [26, 1028],
  [114, 199],
  [700, 1021],
  [701, 1022],
  [1082, 1182],
  [1114, 1115],
  [1184, 1185],
  [1700, 1231],
  [2950, 2951],
  [3802, 3807],
]

/** The flush log's insert of a flush (`flushLogInsert` in `@pipeflush/core`): the table and the flush id. */
export const FLUSH_LOG_INSERT =
  /^insert into (\S+) \(flush_id, committed\) values \('([0-9a-f-]{36})'::uuid, true\)$/i

/**
 * Answers to what drivers and pipeflush send by themselves, used when no handler of the script
 * answers:
 * - postgres.js's fetch of the array types (a few common ones);
 * - `select pg_backend_pid()` (pipeflush's pooler check, `::text as pid`): the connection's process id;
 * - `SET`, `RESET`, `DISCARD`, `SHOW x` and `select current_setting('x')` (the connection's settings),
 *   `select version()`, `select <integer>`;
 * - pipeflush's session check at `connect` (current schema `public`, the connection's DateStyle,
 *   extra_float_digits 1), and its id fetch: each sequence a counter of the server from 1, its ids
 *   given as consecutive blocks;
 * - pipeflush's flush log: the table check (found, as it should be), the flush's insert (`INSERT 0 1`;
 *   23505 for an id the log holds), and `wasCommitted` (true once a transaction holding the flush's
 *   insert committed; otherwise false, and the id is then held as not committed).
 *
 * @example
 * const handlers = defaultHandlers(state) // used after the script's own
 */
export function defaultHandlers(state: DefaultsState): ScriptedHandler[] {
  return [
    {
      match:
        /^select b\.oid, b\.typarray from pg_catalog\.pg_type a left join pg_catalog\.pg_type b on b\.oid = a\.typelem/i,
      answer: {
        columns: [
          { name: 'oid', type: 26 },
          { name: 'typarray', type: 26 },
        ],
        rows: ARRAY_TYPES.map(([oid, array]) => [oid, array]),
      },
    },
    {
      match: /^select pg_backend_pid\(\)(::int4|::text)?( as "?(\w+)"?)?$/i,
      answer: (s) => {
        const alias = /\bas "?(\w+)"?$/i.exec(s.normalized)?.[1] ?? 'pg_backend_pid'
        const type = /::text/i.test(s.normalized) ? 25 : 23
        return { columns: [{ name: alias, type }], rows: [[type === 25 ? String(s.processId) : s.processId]] }
      },
    },
    { match: /^set\s/i, answer: { tag: 'SET' } },
    { match: /^reset\s/i, answer: { tag: 'RESET' } },
    { match: /^discard all$/i, answer: { tag: 'DISCARD ALL' } },
    { match: /^show \S+$/i, answer: (s) => setting(state, s, /^show "?([\w.]+)"?$/i, (name) => name) },
    {
      match: /^select current_setting\('[\w.]+'\)$/i,
      answer: (s) => setting(state, s, /current_setting\('([\w.]+)'\)/i, () => 'current_setting'),
    },
    {
      match: /^select version\(\)$/i,
      answer: (s) => ({
        rows: [{ version: `PostgreSQL ${state.settings(s.connection)['server_version']} (scripted)` }],
      }),
    },
    {
      match: /^select -?\d+$/,
      answer: (s) => ({ columns: [{ name: '?column?', type: 23 }], rows: [[s.normalized.slice(7)]] }),
    },
    {
      match:
        /^select current_schema\(\) as current, array_to_json\(current_schemas\(false\)\)::text as schemas/i,
      answer: (s) => ({
        rows: [
          {
            current: 'public',
            schemas: '["public"]',
            datestyle: state.settings(s.connection)['datestyle'] ?? 'ISO, MDY',
            efd: state.settings(s.connection)['extra_float_digits'] ?? '1',
            arraynulls: state.settings(s.connection)['array_nulls'] ?? 'on',
          },
        ],
      }),
    },
    { match: /nextval\(s\.r\)/i, answer: (s) => fetchIds(state, s) },
    {
      match: /^select \(to_regclass\('[^']*'\) is not null\)::text as found/i,
      answer: { rows: [{ found: 'true', idtype: 'uuid', committedtype: 'boolean', unique: 'true' }] },
    },
    {
      match: FLUSH_LOG_INSERT,
      answer: (s): Answer => {
        const id = FLUSH_LOG_INSERT.exec(s.normalized)?.[2] ?? ''
        if (!state.flushLog.has(id)) return { tag: 'INSERT 0 1' }
        return {
          error: {
            code: '23505',
            message: 'duplicate key value violates unique constraint "pipeflush_flush_log_pkey"',
            detail: `Key (flush_id)=(${id}) already exists.`,
            constraint: 'pipeflush_flush_log_pkey',
          },
        }
      },
    },
    {
      match:
        /^insert into \S+ as l \(flush_id, committed\) values \('[0-9a-f-]{36}'::uuid, false\) on conflict/i,
      answer: (s) => {
        const id = /'([0-9a-f-]{36})'::uuid/i.exec(s.normalized)?.[1] ?? ''
        if (!state.flushLog.has(id)) state.flushLog.set(id, false)
        return { rows: [{ committed: String(state.flushLog.get(id)) }], tag: 'INSERT 0 1' }
      },
    },
  ]
}

/** A setting of the statement's connection, as one row named by `column`; 42704 when unknown. */
function setting(
  state: DefaultsState,
  s: ScriptedStatement,
  pattern: RegExp,
  column: (name: string) => string,
): Answer {
  const name = (pattern.exec(s.normalized)?.[1] ?? '').toLowerCase()
  const value = state.settings(s.connection)[name]
  if (value === undefined)
    return { error: { code: '42704', message: `unrecognized configuration parameter "${name}"` } }
  return { rows: [{ [column(name)]: value }] }
}

/**
 * pipeflush's id fetch: the sequences and counts of its `unnest(...)` (and the tables and columns of
 * sequences found from their column, which the scripted server ignores), each drawn from the server's
 * counters by the sequence's name.
 */
function fetchIds(state: DefaultsState, s: ScriptedStatement): Answer {
  const m = /unnest\((E?)'((?:[^'\\]|''|\\.)*)'::text\[\], '\{([0-9,]*)\}'::int4\[\][,)]/i.exec(s.normalized)
  if (m === null)
    return { error: { code: '42601', message: 'scripted server: an id fetch it cannot read', position: 1 } }
  const quoted = m[2]!.replace(/''/g, "'")
  const names = parseTextArray(m[1] === '' ? quoted : quoted.replace(/\\(.)/g, '$1'))
  const counts = m[3]!.split(',').map(Number)
  const rows = names.map((seq, i) => {
    const n = counts[i] ?? 0
    const last = state.sequences.get(seq) ?? 0
    state.sequences.set(seq, last + n)
    return { seq, first: n > 0 ? String(last + 1) : null, count: String(n), ids: null }
  })
  return {
    columns: ['seq', 'first', 'count', 'ids'],
    rows,
  }
}

/** The elements of a one-dimensional array literal (`{"a","b c",d}`). */
function parseTextArray(literal: string): string[] {
  const body = literal.trim().replace(/^\{/, '').replace(/\}$/, '')
  const out: string[] = []
  let i = 0
  while (i < body.length) {
    if (body[i] === '"') {
      let s = ''
      i++
      while (i < body.length && body[i] !== '"') {
        if (body[i] === '\\') i++
        s += body[i] ?? ''
        i++
      }
      out.push(s)
      i += 2 // the quote and the comma
    } else {
      const end = body.indexOf(',', i)
      const stop = end < 0 ? body.length : end
      out.push(body.slice(i, stop))
      i = stop + 1
    }
  }
  return out
}
