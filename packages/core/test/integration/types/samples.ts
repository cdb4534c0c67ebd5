/**
 * Sample values for the catalog-generated type test (`every-type.test.ts`). The types come from the
 * server's catalog; this file only says which text each type reads. A type found in the catalog with no
 * valid sample, and not in {@link SKIPPED}, fails the test, listed by name: add its samples here.
 */

/** A sample: a literal of the type's text input, or a SQL query whose single text value is one. */
export type SampleSource = string | { readonly sql: string }

/**
 * Literals by type name (`typname`), two where possible (updates move a value to the second). Several
 * are written in a form the server canonicalizes, so that reads give the server's form, not ours.
 */
export const SAMPLES: Readonly<Record<string, readonly SampleSource[]>> = {
  // numbers
  int2: ['-32768', '7'],
  int4: ['2147483647', '-1'],
  int8: ['-9223372036854775808', '42'],
  numeric: ['1.50', '-0.000001'],
  float4: ['1.5', '-0.1'],
  float8: ['0.1', '-1e-300'],
  money: ['12.34', '-1'],
  oid: ['4294967295', '0'],
  xid: ['42', '0'],
  xid8: ['18446744073709551615', '42'],
  cid: ['1', '42'],
  // text
  text: ['plain', 'with "quotes", {braces}, \\ and ;'],
  varchar: ['v', 'NULL'],
  bpchar: ['ab ', 'x'],
  name: ['abc', 'With Space'],
  char: ['a', '\\303'], // a byte past ASCII as the server writes it; 'ab' is INVALID_VALUE (one byte)
  refcursor: ['cur', 'Cursor 2'],
  citext: ['MiXed Case', 'abc'],
  // time
  date: ['2024-01-02', '0044-03-15 BC'],
  time: ['03:04:05.123456', '24:00:00'],
  timetz: ['03:04:05+02', '03:04:05.5-08:30'],
  timestamp: ['2024-01-02 03:04:05.678', '1999-12-31 23:59:59'],
  timestamptz: ['2024-01-02 03:04:05.678+00', '1999-12-31 23:59:59-08'],
  interval: ['1 day 25:00:00', '1 year 2 months -3 days'],
  // json and ids
  json: ['{"b": 1, "a": [1, "x", null]}', '"str"'],
  jsonb: ['{"b": 1, "a": [1, "x", null]}', '[]'],
  jsonpath: ['$.a[*] ? (@ > 1)', '$."b c"'],
  uuid: ['A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '00000000-0000-0000-0000-000000000000'],
  // binary and bit strings
  bytea: ['\\x00ff', 'abc'],
  bit: ['101', '0'],
  varbit: ['10101', ''],
  // network
  inet: ['10.0.0.1/32', '::1', '192.168.0.1/24'],
  cidr: ['10.0.0.0/8', '192.168.1'],
  macaddr: ['08:00:2b:01:02:03', '08002b010204'],
  macaddr8: ['08:00:2b:01:02:03:04:05', '08:00:2b:01:02:03'],
  // geometric
  point: ['(1,2)', '(-1.5,1e10)'],
  line: ['{1,2,3}', '[(0,0),(1,1)]'],
  lseg: ['[(0,0),(1,1)]', '((1,2),(3,4))'],
  box: ['(1,1),(0,0)', '(3,4),(1,2)'],
  path: ['[(0,0),(1,1),(2,0)]', '((0,0),(1,1))'],
  polygon: ['((0,0),(1,1),(1,0))', '((0,0))'],
  circle: ['<(1,2),3>', '((0,0),1)'],
  // text search
  tsvector: ['a fat cat', "b:1A c:2,3 'it''s'"],
  tsquery: ['fat & rat', 'a:* | !b'],
  regconfig: ['simple', 'english'],
  regdictionary: ['simple', 'english_stem'],
  // xml
  xml: ['<a b="c">d</a>', 'plain content'],
  // system identifiers
  regclass: ['pg_class', 'pg_catalog.pg_type'],
  regtype: ['int4', 'character varying'],
  regproc: ['now', 'pg_backend_pid'],
  regprocedure: ['sum(int4)', 'now()'],
  regoper: ['||/', '|/'],
  regoperator: ['+(int4,int4)', '||/(NONE,float8)'],
  regnamespace: ['pg_catalog', 'public'],
  regrole: ['pg_monitor', 'pg_signal_backend'],
  regcollation: ['"C"', 'ucs_basic'],
  aclitem: [{ sql: `select (pg_catalog.acldefault('r', 10))[1]::text` }],
  tid: ['(0,1)', '(42,7)'],
  int2vector: ['1 2 3', '0'],
  oidvector: ['1 2', '23'],
  pg_lsn: ['16/B374D848', '0/0'],
  pg_snapshot: ['10:20:10,14,15', '1:1:'],
  txid_snapshot: ['10:20:10,14,15', '1:1:'],
  // ranges and multiranges
  int4range: ['(1,5]', 'empty'],
  int8range: ['[1,9223372036854775806)', '(,)'],
  numrange: ['[1.5,2.5)', '(,0]'],
  daterange: ['[2024-01-01,2024-02-01)', '(2024-01-01,)'],
  tsrange: ['[2024-01-01 00:00,2024-01-02 00:00)', 'empty'],
  tstzrange: ['["2024-01-01 00:00+00","2024-01-02 00:00+00")', '(,)'],
  int4multirange: ['{[1,3),[5,7]}', '{}'],
  int8multirange: ['{(1,3)}', '{}'],
  nummultirange: ['{[1.5,2.5)}', '{(,)}'],
  datemultirange: ['{[2024-01-01,2024-02-01)}', '{}'],
  tsmultirange: ['{[2024-01-01 00:00,2024-01-02 00:00)}', '{}'],
  tstzmultirange: ['{["2024-01-01 00:00+00","2024-01-02 00:00+00")}', '{}'],
  // extension types (contrib)
  hstore: ['"a"=>"1", b=>NULL', '"k \\"q\\""=>"v"'],
  ltree: ['top.science.astronomy', 'a'],
  lquery: ['top.*{1,2}.foo', '*.b'],
  ltxtquery: ['Europe & Russia*@ & !Transportation', 'a'],
  cube: ['(1,2),(3,4)', '1'],
  seg: ['5.0 .. 7.0', '<1.5'],
  query_int: ['1&(2|3)', '!4'],
  ean13: ['9780306406157', '0012345678905'],
  isbn: ['0306406152', '978-0-306-40615-7'],
  isbn13: ['9780306406157', '0-306-40615-2'],
  ismn: ['9790060115615'],
  ismn13: ['9790060115615'],
  issn: ['0317-8471', '9770317847001'],
  issn13: ['9770317847001', '0317-8471'],
  upc: ['012345678905'],
  // types every-type.test.ts creates (CUSTOM_TYPES_DDL)
  pf_years: ['1', '2 years 3 months'],
  pf_years2: ['1', '-7'],
  pf_int_list: ['{1,2}', '{}'],
  pf_pair: ['(1,"x y")', '(,)'],
  pf_host: ['10.0.0.1/32', '10.1.2.3'],
  earth: [
    { sql: 'select public.ll_to_earth(48.8, 2.35)::text' },
    { sql: 'select public.ll_to_earth(0, 0)::text' },
  ],
  yes_or_no: ['YES', 'NO'],
}

/**
 * Types the type test creates besides those of the catalog: an enum in a schema whose name needs
 * quoting, a range and its multirange, a composite, and domains over a check, `varchar(n)`, an
 * interval with fields (twice, nested), inet, an array, the enum, a range, `box` (whose arrays are
 * `;`-separated) and citext (when the extension exists).
 */
export const CUSTOM_TYPES_DDL = `
  create schema "Pf Schema";
  create type "Pf Schema"."Mood Type" as enum ('sad', 'with space', 'quote"d', 'comma,brace}', 'NULL');
  create type pf_floatrange as range (subtype = float8);
  create type pf_pair as (a int4, b text);
  create domain pf_posint as int4 check (value > 0);
  create domain pf_short as varchar(5);
  create domain pf_years as interval year;
  create domain pf_years2 as pf_years;
  create domain pf_host as inet check (family(value) = 4);
  create domain pf_int_list as int4[] check (cardinality(value) < 5);
  create domain pf_mood as "Pf Schema"."Mood Type";
  create domain pf_span as int4range;
  create domain pf_box as box;
  do $$ begin
    if exists (select 1 from pg_catalog.pg_type where typname = 'citext') then create domain pf_email as citext; end if;
  end $$;
`

/**
 * Candidates tried, in order, for a type with no entry in {@link SAMPLES} (a type added by a new server
 * version or extension), after those derived from its kind (enum labels, `empty` and `(,)` for ranges,
 * `{}` for multiranges, an all-NULL row for composite types, the samples of a domain's base type).
 */
export const GENERIC_SAMPLES: readonly string[] = [
  '1',
  '0',
  't',
  'a',
  '(1,2)',
  '[1,2)',
  '{}',
  '1.5',
  '2024-01-02',
  '2024-01-02 03:04:05',
  '03:04:05',
  '1 day',
  '10.0.0.1',
  '{"a": 1}',
  '(0,1)',
]

/** Texts tried, in order, to find one the type's input rejects. */
export const BAD_TEXTS: readonly string[] = ['pipeflush: not a value', '(', '{', '<', '', ']', '-', 'x']

/**
 * Types whose input accepts every text (any string is some value of them): no bad text exists, so
 * they are checked with a NUL character, which no PostgreSQL text can hold (`INVALID_VALUE` before
 * anything is sent).
 */
export const ACCEPTS_ANY_TEXT: Readonly<Record<string, string>> = {
  text: 'any string is a text',
  varchar: 'any string is a varchar',
  bpchar: 'any string is a char',
  name: 'any string is a name (the server cuts it to 63 bytes; pipeflush refuses a longer one)',
  char: '"char" keeps the first byte of any string (pipeflush refuses more than one byte)',
  refcursor: 'any string is a cursor name',
  citext: 'any string is a citext',
  tsvector: 'any string parses as lexemes',
  character_data: 'a domain over varchar',
  sql_identifier: 'a domain over name',
}

/**
 * Types that cannot be stored through their text form at all, each with the reason. Pseudo-types
 * (`typtype = 'p'`: any, anyarray, record, cstring, internal, unknown, trigger, void...) are skipped as
 * a class: no column can have them. Array types are not listed: every type is also tested as an array
 * element.
 */
export const SKIPPED: Readonly<Record<string, string>> = {
  pg_node_tree: 'internal: the input function refuses every text (expression trees are made by the server)',
  pg_ndistinct: 'internal statistics: the input function refuses every text',
  pg_dependencies: 'internal statistics: the input function refuses every text',
  pg_mcv_list: 'internal statistics: the input function refuses every text',
  pg_brin_bloom_summary: 'internal BRIN summary: the input function refuses every text',
  pg_brin_minmax_multi_summary: 'internal BRIN summary: the input function refuses every text',
  gtsvector: 'GiST storage type of tsvector: the input function refuses every text',
  gbtreekey2: 'btree_gist storage type: the input function refuses every text',
  gbtreekey4: 'btree_gist storage type: the input function refuses every text',
  gbtreekey8: 'btree_gist storage type: the input function refuses every text',
  gbtreekey16: 'btree_gist storage type: the input function refuses every text',
  gbtreekey32: 'btree_gist storage type: the input function refuses every text',
  gbtreekey_var: 'btree_gist storage type: the input function refuses every text',
  ghstore: 'hstore GiST storage type: the input function refuses every text',
  gtrgm: 'pg_trgm GiST storage type: the input function refuses every text',
  intbig_gkey: 'intarray GiST storage type: the input function refuses every text',
  ltree_gist: 'ltree GiST storage type: the input function refuses every text',
}
