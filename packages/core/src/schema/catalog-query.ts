/**
 * One query reading every table of the given schemas from pg_catalog: columns (their type, and the type
 * values are written in: through domains and arrays to the element's type, its typmod, array delimiter
 * and enum labels; nullability, default, identity, generated, serial/identity sequence), primary key,
 * foreign keys (columns, target, deferrability, ON DELETE) and unique constraints, and whether COPY
 * would behave unlike INSERT on it (row-level security, rewrite rules). One row per table.
 */
export const CATALOG_QUERY = `
with t as (
  select c.oid, n.nspname as schema, c.relname as name, c.relrowsecurity or c.relhasrules as copy_refused
  from pg_catalog.pg_class c
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p') and not c.relispartition and n.nspname = any($1::text[])
)
select t.schema, t.name, t.copy_refused,
  (select coalesce(json_agg(json_build_object(
      'name', a.attname,
      'qualifiedType', quote_ident(tn.nspname) || '.' || quote_ident(ty.typname),
      'qualifiedElemType', case when et.oid is not null then quote_ident(etn.nspname) || '.' || quote_ident(et.typname) end,
      'isDomain', ty.typtype = 'd' or coalesce(et.typtype = 'd', false),
      'baseSchema', bn.nspname,
      'baseName', bt.typname,
      'baseTyptype', bt.typtype,
      'typmod', r.typmod,
      'isArray', r.is_array,
      'delimiter', bt.typdelim::text,
      'nullable', not a.attnotnull,
      'hasDefault', a.atthasdef,
      'identity', a.attidentity,
      'generated', a.attgenerated,
      'sequence', pg_catalog.pg_get_serial_sequence(quote_ident(t.schema) || '.' || quote_ident(t.name), a.attname),
      'enumLabels', case when bt.typtype = 'e' then (select json_agg(e.enumlabel order by e.enumsortorder)
                    from pg_catalog.pg_enum e where e.enumtypid = bt.oid) end
    ) order by a.attnum), '[]'::json)
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_type ty on ty.oid = a.atttypid
    join pg_catalog.pg_namespace tn on tn.oid = ty.typnamespace
    left join pg_catalog.pg_type et on et.oid = nullif(ty.typelem, 0) and ty.typinput = 'pg_catalog.array_in'::regproc
    left join pg_catalog.pg_namespace etn on etn.oid = et.typnamespace
    -- The type values are written in: domains resolved to the type they are over (keeping the typmod
    -- of the innermost domain), arrays (types read by array_in, domains over arrays too) to their
    -- element type, resolved the same way.
    cross join lateral (
      with recursive chain(oid, typmod, is_array, depth) as (
        select a.atttypid, a.atttypmod, false, 0
        union all
        select case when cty.typtype = 'd' then cty.typbasetype else cty.typelem end,
               case when cty.typtype = 'd' and cty.typtypmod <> -1 then cty.typtypmod else c.typmod end,
               c.is_array or cty.typtype <> 'd',
               c.depth + 1
        from chain c
        join pg_catalog.pg_type cty on cty.oid = c.oid
        where cty.typtype = 'd' or (not c.is_array and cty.typinput = 'pg_catalog.array_in'::regproc)
      )
      select chain.oid, chain.typmod, chain.is_array from chain order by chain.depth desc limit 1
    ) r
    join pg_catalog.pg_type bt on bt.oid = r.oid
    join pg_catalog.pg_namespace bn on bn.oid = bt.typnamespace
    where a.attrelid = t.oid and a.attnum > 0 and not a.attisdropped
  ) as columns,
  (select json_agg(a.attname order by k.ord)
    from pg_catalog.pg_constraint co
    cross join lateral unnest(co.conkey) with ordinality k(num, ord)
    join pg_catalog.pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.num
    where co.conrelid = t.oid and co.contype = 'p'
  ) as primary_key,
  (select coalesce(json_agg(json_build_object(
      'name', co.conname,
      'columns', (select json_agg(a.attname order by k.ord) from unnest(co.conkey) with ordinality k(num, ord)
                  join pg_catalog.pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.num),
      'targetSchema', tns.nspname,
      'targetName', tc.relname,
      'targetColumns', (select json_agg(a.attname order by k.ord) from unnest(co.confkey) with ordinality k(num, ord)
                        join pg_catalog.pg_attribute a on a.attrelid = co.confrelid and a.attnum = k.num),
      'deferrable', co.condeferrable,
      'initiallyDeferred', co.condeferred,
      'onDelete', co.confdeltype
    ) order by co.conname), '[]'::json)
    from pg_catalog.pg_constraint co
    join pg_catalog.pg_class tc on tc.oid = co.confrelid
    join pg_catalog.pg_namespace tns on tns.oid = tc.relnamespace
    where co.conrelid = t.oid and co.contype = 'f'
  ) as foreign_keys,
  (select coalesce(json_agg(json_build_object(
      'name', co.conname,
      'columns', (select json_agg(a.attname order by k.ord) from unnest(co.conkey) with ordinality k(num, ord)
                  join pg_catalog.pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.num)
    ) order by co.conname), '[]'::json)
    from pg_catalog.pg_constraint co
    where co.conrelid = t.oid and co.contype = 'u'
  ) as uniques
from t
order by t.schema, t.name
`
