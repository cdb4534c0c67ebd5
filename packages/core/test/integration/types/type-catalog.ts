import type postgres from 'postgres'
import { GENERIC_SAMPLES, SAMPLES, type SampleSource, SKIPPED } from './samples.ts'

/** A type of the server's catalog that a column can have (arrays aside: each type is tested as an element). */
export interface CatalogType {
  readonly oid: number
  readonly schema: string
  readonly name: string
  /** `b` base, `e` enum, `r` range, `m` multirange, `d` domain, `c` composite, `p` pseudo. */
  readonly typtype: string
  /** Qualified and quoted, for DDL: `pg_catalog."bit"` (no typmod: a bare `bit` would be `bit(1)`). */
  readonly ddl: string
  readonly hasArray: boolean
  /** For a domain, the type it is over. */
  readonly baseOid: number
  /** For a composite type, its number of attributes. */
  readonly attributes: number
  readonly enumLabels: readonly string[]
  /** A domain over an array type (directly or through other domains): its own arrays are multi-dimensional. */
  readonly overArray: boolean
}

/** `schema.name` of a type, for messages. */
export function typeLabel(t: CatalogType): string {
  return `${t.schema}.${t.name}`
}

/**
 * Every type of the database but array types, row types of tables and types of pg_toast and temporary
 * schemas: what a column can be declared with.
 */
export async function catalogTypes(sql: postgres.Sql): Promise<CatalogType[]> {
  const rows = await sql.unsafe<
    {
      oid: number
      schema: string
      name: string
      typtype: string
      ddl: string
      has_array: boolean
      base_oid: number
      attributes: number
      labels: string[]
      over_array: boolean
    }[]
  >(`
    select t.oid::int4 as oid, n.nspname as schema, t.typname as name, t.typtype::text as typtype,
      quote_ident(n.nspname) || '.' || quote_ident(t.typname) as ddl,
      t.typarray <> 0 as has_array, t.typbasetype::int4 as base_oid,
      (select count(*) from pg_catalog.pg_attribute a
        where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped)::int4 as attributes,
      coalesce((select json_agg(e.enumlabel order by e.enumsortorder) from pg_catalog.pg_enum e
        where e.enumtypid = t.oid), '[]'::json) as labels,
      coalesce((select b.typinput = 'pg_catalog.array_in'::regproc from pg_catalog.pg_type b
        where b.oid = t.typbasetype), false) as over_array
    from pg_catalog.pg_type t
    join pg_catalog.pg_namespace n on n.oid = t.typnamespace
    where t.typisdefined
      and t.typinput <> 'pg_catalog.array_in'::regproc
      and (t.typtype <> 'c' or exists (select 1 from pg_catalog.pg_class c where c.oid = t.typrelid and c.relkind = 'c'))
      and n.nspname <> 'pg_toast' and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'
    order by n.nspname, t.typname`)
  const overArray = new Map(rows.map((r) => [r.oid, r]))
  const isOverArray = (oid: number): boolean => {
    const r = overArray.get(oid)
    return r !== undefined && (r.over_array || (r.base_oid !== 0 && isOverArray(r.base_oid)))
  }
  return rows.map((r) => ({
    oid: r.oid,
    schema: r.schema,
    name: r.name,
    typtype: r.typtype,
    ddl: r.ddl,
    hasArray: r.has_array,
    baseOid: r.base_oid,
    attributes: r.attributes,
    enumLabels: r.labels,
    overArray: isOverArray(r.oid),
  }))
}

/** Why a type is not tested, or undefined when it is. */
export function skipReason(t: CatalogType): string | undefined {
  if (t.typtype === 'p') return 'pseudo-type: no column can have it'
  return SKIPPED[t.name]
}

/**
 * Functions of the session's temporary schema (create them on a connection of its own): the output of
 * a literal read by a type's input (`pf_output`, null when rejected) and the SQLSTATE of a statement
 * (`pf_state`, null when it succeeds).
 */
export const HELPER_FUNCTIONS = `
create function pg_temp.pf_output(lit text, type text) returns text language plpgsql as $$
declare out text;
begin
  execute 'select pg_catalog.format(''%s'', ' || pg_catalog.quote_literal(lit) || '::' || type || ')' into out;
  return out;
exception when others then return null;
end $$;
create function pg_temp.pf_state(stmt text) returns text language plpgsql as $$
begin
  execute stmt;
  return null;
exception when others then return sqlstate || ' ' || sqlerrm;
end $$;
`

/** One sample of a type: the literal written, and the server's output for it. */
export interface TypeSample {
  readonly literal: string
  readonly output: string
}

/** The candidates for a type's samples: its own, then those its kind gives, then generic ones. */
function candidates(t: CatalogType, byOid: ReadonlyMap<number, CatalogType>): readonly SampleSource[] {
  const own = SAMPLES[t.name]
  if (own !== undefined) return own
  const derived: SampleSource[] = []
  if (t.typtype === 'e') derived.push(...t.enumLabels.slice(0, 2))
  if (t.typtype === 'r') derived.push('(,)', 'empty')
  if (t.typtype === 'm') derived.push('{(,)}', '{}')
  if (t.typtype === 'c') derived.push(`(${','.repeat(Math.max(0, t.attributes - 1))})`)
  const base = byOid.get(t.baseOid)
  if (t.typtype === 'd' && base !== undefined) derived.push(...candidates(base, byOid))
  return [...derived, ...GENERIC_SAMPLES]
}

/**
 * Up to two samples per type (distinct outputs), found by reading candidates with the type's input
 * on `sql` (a connection holding {@link HELPER_FUNCTIONS}). A type's own samples (in `SAMPLES`) must all
 * be valid: those that are not are returned in `stale`.
 */
export async function findSamples(
  sql: postgres.Sql,
  types: readonly CatalogType[],
  all: readonly CatalogType[],
): Promise<{ samples: Map<CatalogType, TypeSample[]>; stale: string[] }> {
  const byOid = new Map(all.map((t) => [t.oid, t]))
  const stale: string[] = []
  const lits: string[] = []
  const ddls: string[] = []
  const owners: { type: CatalogType; own: boolean }[] = []
  for (const t of types) {
    const own = SAMPLES[t.name] !== undefined
    for (const source of candidates(t, byOid)) {
      const literal = await literalOf(sql, source)
      if (literal === undefined) {
        stale.push(`${typeLabel(t)}: the sample query ${JSON.stringify(source)} gave no text`)
        continue
      }
      lits.push(literal)
      ddls.push(t.ddl)
      owners.push({ type: t, own })
    }
  }
  const outputs = await sql.unsafe<{ output: string | null }[]>(
    'select pg_temp.pf_output(x.lit, x.ddl) as output from unnest($1::text[], $2::text[]) with ordinality as x(lit, ddl, i) order by x.i',
    [lits, ddls],
  )
  const samples = new Map<CatalogType, TypeSample[]>()
  for (const [i, { type, own }] of owners.entries()) {
    const output = outputs[i]?.output ?? null
    const literal = lits[i] ?? ''
    if (output === null) {
      if (own) stale.push(`${typeLabel(type)}: ${JSON.stringify(literal)} is rejected by the type's input`)
      continue
    }
    const list = samples.get(type) ?? []
    if (list.length < 2 && !list.some((s) => s.output === output)) list.push({ literal, output })
    samples.set(type, list)
  }
  return { samples, stale }
}

/** The text a sample source stands for: the literal, or the single text value its query selects. */
async function literalOf(sql: postgres.Sql, source: SampleSource): Promise<string | undefined> {
  if (typeof source === 'string') return source
  try {
    const [row] = await sql.unsafe<Record<string, unknown>[]>(source.sql)
    const value = row === undefined ? undefined : Object.values(row)[0]
    return typeof value === 'string' ? value : undefined
  } catch {
    return undefined
  }
}

/** The first of `texts` the type's input rejects with a SQLSTATE outside class 23 (constraints), with that SQLSTATE. */
export async function findBadText(
  sql: postgres.Sql,
  t: CatalogType,
  texts: readonly string[],
): Promise<{ text: string; sqlState: string } | undefined> {
  const states = await sql.unsafe<{ state: string | null }[]>(
    `select pg_temp.pf_state('select ' || pg_catalog.quote_literal(x.t) || '::' || $2::text) as state
     from unnest($1::text[]) with ordinality as x(t, i) order by x.i`,
    [texts as string[], t.ddl],
  )
  for (const [i, text] of texts.entries()) {
    const state = states[i]?.state
    if (state != null && !state.startsWith('23')) return { text, sqlState: state.slice(0, 5) }
  }
  return undefined
}
