/**
 * One query reading every table of the given schemas from pg_catalog: columns (type, nullability,
 * default, identity, generated, serial/identity sequence, enum labels, length limit), primary key,
 * foreign keys (columns, target, deferrability, ON DELETE) and unique constraints. One row per table.
 */
export const CATALOG_QUERY = `
with t as (
  select c.oid, n.nspname as schema, c.relname as name
  from pg_catalog.pg_class c
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p') and not c.relispartition and n.nspname = any($1::text[])
)
select t.schema, t.name,
  (select coalesce(json_agg(json_build_object(
      'name', a.attname,
      'typname', coalesce(bt.typname, ty.typname),
      'typtype', coalesce(bt.typtype, ty.typtype),
      'elemTypname', coalesce(ebt.typname, et.typname),
      'elemTyptype', coalesce(ebt.typtype, et.typtype),
      'typeOid', coalesce(nullif(et.oid, 0), ty.oid),
      'qualifiedType', quote_ident(tn.nspname) || '.' || quote_ident(ty.typname),
      'qualifiedElemType', case when et.oid is not null then quote_ident(etn.nspname) || '.' || quote_ident(et.typname) end,
      'isArray', ty.typcategory = 'A',
      'nullable', not a.attnotnull,
      'hasDefault', a.atthasdef,
      'identity', a.attidentity,
      'generated', a.attgenerated,
      'typmod', a.atttypmod,
      'sequence', pg_catalog.pg_get_serial_sequence(quote_ident(t.schema) || '.' || quote_ident(t.name), a.attname),
      'enumLabels', (select json_agg(e.enumlabel order by e.enumsortorder) from pg_catalog.pg_enum e
                     where e.enumtypid = case when ty.typcategory = 'A' then coalesce(nullif(et.typbasetype, 0), et.oid)
                                              else coalesce(nullif(ty.typbasetype, 0), ty.oid) end)
    ) order by a.attnum), '[]'::json)
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_type ty on ty.oid = a.atttypid
    join pg_catalog.pg_namespace tn on tn.oid = ty.typnamespace
    left join pg_catalog.pg_type bt on bt.oid = nullif(ty.typbasetype, 0)
    left join pg_catalog.pg_type et on et.oid = nullif(ty.typelem, 0) and ty.typcategory = 'A'
    left join pg_catalog.pg_namespace etn on etn.oid = et.typnamespace
    left join pg_catalog.pg_type ebt on ebt.oid = nullif(et.typbasetype, 0)
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
