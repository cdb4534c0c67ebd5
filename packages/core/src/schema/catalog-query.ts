/** A string literal as `pg_get_expr` prints it: `'name'`, quotes doubled. */
const LITERAL = "'(?:[^']|'')+'"

/** `nextval('name'::regclass)` or `nextval(('name'::text)::regclass)`, as `pg_get_expr` prints them. */
const NEXTVAL = `nextval\\((?:${LITERAL}|\\(${LITERAL}::text\\))::regclass\\)`

/** A default that is a `nextval` and nothing else, maybe cast to an integer type (a regular expression). */
export const BARE_NEXTVAL = `^(?:${NEXTVAL}|\\(${NEXTVAL}\\)::(?:smallint|integer|bigint|numeric(?:\\(\\d+(?:,\\d+)?\\))?))$`

/** The name a `nextval` default gives, its quotes still doubled (a regular expression's first group). */
export const NEXTVAL_NAME = "nextval\\(\\(?'((?:[^']|'')+)'"

/** A part of a name: quoted, or a plain identifier. */
const PART = '(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)'

/** A name of one or two parts, which `parse_ident` reads without an error (a regular expression). */
export const IDENTIFIER = `^${PART}(?:\\.${PART})?$`

/**
 * One query reading every table, view and materialized view of the given schemas from pg_catalog:
 * columns (their type, and the type values are written in: through domains and arrays to the element's
 * type, its typmod, array delimiter and enum labels; nullability, default, identity, generated (with
 * the columns a generated one is computed from), and the sequence that fills the column with whether
 * the session may draw from it), primary key, foreign
 * keys (columns, target, deferrability, ON DELETE) and unique constraints, whether COPY would behave
 * unlike INSERT on it (row-level security, rewrite rules), and for a partitioned table the foreign
 * keys of each of its leaf partitions. One row per table.
 *
 * The sequence of a column: its identity or OWNED BY sequence (as `pg_get_serial_sequence` finds it), else the one
 * its DEFAULT is nothing but a `nextval` of (cast to an integer type or not): found through `pg_depend`
 * (the default depends on the sequence it names as a regclass constant), else by the name the
 * expression gives (`nextval('name'::text)`, resolved as a qualified name or through the search path).
 *
 * A foreign key's target is the partitioned table a referenced partition belongs to
 * (`pg_partition_root`); the copies PostgreSQL makes of a foreign key for each partition
 * (`conparentid` set) are left out of a table's own keys.
 */
export const CATALOG_QUERY = `
with t as (
  select c.oid, n.nspname as schema, c.relname as name, c.relkind::text as kind,
    c.relrowsecurity or c.relhasrules as copy_refused,
    not pg_catalog.has_table_privilege(c.oid, 'SELECT') as select_denied
  from pg_catalog.pg_class c
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition and n.nspname = any($1::text[])
),
leaf as (
  select t.oid as root, l.relid
  from t cross join lateral pg_catalog.pg_partition_tree(t.oid) as l
  where t.kind = 'p' and l.isleaf and l.level > 0
),
fk as (
  select co.conrelid, co.conparentid, co.conname, json_build_object(
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
    ) as fk
  from pg_catalog.pg_constraint co
  join pg_catalog.pg_class tc on tc.oid = coalesce(pg_catalog.pg_partition_root(co.confrelid), co.confrelid)
  join pg_catalog.pg_namespace tns on tns.oid = tc.relnamespace
  where co.contype = 'f' and co.conrelid in (select t.oid from t union all select leaf.relid from leaf)
)
select t.schema, t.name, t.kind, t.copy_refused, t.select_denied,
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
      -- The columns a generated column is computed from: those its expression depends on.
      'generatedFrom', case when a.attgenerated <> '' then (
        select json_agg(da.attname order by da.attnum) from pg_catalog.pg_depend d
        join pg_catalog.pg_attribute da on da.attrelid = a.attrelid and da.attnum = d.refobjsubid
        where d.classid = 'pg_catalog.pg_attrdef'::regclass and d.objid = ad.oid
          and d.refclassid = 'pg_catalog.pg_class'::regclass and d.refobjid = a.attrelid
          and d.refobjsubid > 0 and d.refobjsubid <> a.attnum and d.deptype = 'n') end,
      'sequence', case when sq.oid is not null then quote_ident(sn.nspname) || '.' || quote_ident(s.relname) end,
      'sequenceUsable', case when sq.oid is not null then pg_catalog.has_sequence_privilege(sq.oid, 'USAGE')
                          or pg_catalog.has_sequence_privilege(sq.oid, 'UPDATE') end,
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
    left join pg_catalog.pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
    -- The sequence that fills the column (see above). A default is a sequence's when it is nothing but
    -- nextval('name'::regclass) or nextval(('name'::text)::regclass), maybe cast to an integer type.
    cross join lateral (
      select coalesce(
        (select d.objid from pg_catalog.pg_depend d
         join pg_catalog.pg_class ds on ds.oid = d.objid and ds.relkind = 'S'
         where d.classid = 'pg_catalog.pg_class'::regclass and d.refclassid = 'pg_catalog.pg_class'::regclass
           and d.refobjid = a.attrelid and d.refobjsubid = a.attnum and d.deptype in ('a', 'i')
         limit 1),
        case when pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) ~ $re$${BARE_NEXTVAL}$re$ then coalesce(
          (select d.refobjid from pg_catalog.pg_depend d
           join pg_catalog.pg_class ds on ds.oid = d.refobjid and ds.relkind = 'S'
           where d.classid = 'pg_catalog.pg_attrdef'::regclass and d.objid = ad.oid
             and d.refclassid = 'pg_catalog.pg_class'::regclass and d.deptype = 'n'
           limit 1),
          -- nextval('name'::text) depends on no sequence: the sequence its name resolves to as a
          -- qualified name, or through the search path. Names that parse_ident could refuse are left
          -- alone (a name lookup would also fail on a schema the role may not use).
          (select ds.oid from pg_catalog.pg_class ds
           join pg_catalog.pg_namespace dn on dn.oid = ds.relnamespace
           cross join lateral (
             select case when given.name ~ $re$${IDENTIFIER}$re$ then pg_catalog.parse_ident(given.name) end as parts
             from (select replace((regexp_match(pg_catalog.pg_get_expr(ad.adbin, ad.adrelid),
               $re$${NEXTVAL_NAME}$re$))[1], '''''', '''') as name) as given
           ) as named
           where ds.relkind = 'S' and (
             (cardinality(named.parts) = 2 and dn.nspname = named.parts[1] and ds.relname = named.parts[2])
             or (cardinality(named.parts) = 1 and ds.relname = named.parts[1]
                 and dn.nspname = any(pg_catalog.current_schemas(true))))
           order by array_position(pg_catalog.current_schemas(true), dn.nspname)
           limit 1)
        ) end
      ) as oid
    ) sq
    left join pg_catalog.pg_class s on s.oid = sq.oid
    left join pg_catalog.pg_namespace sn on sn.oid = s.relnamespace
    where a.attrelid = t.oid and a.attnum > 0 and not a.attisdropped
  ) as columns,
  (select json_agg(a.attname order by k.ord)
    from pg_catalog.pg_constraint co
    cross join lateral unnest(co.conkey) with ordinality k(num, ord)
    join pg_catalog.pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.num
    where co.conrelid = t.oid and co.contype = 'p'
  ) as primary_key,
  (select coalesce(json_agg(fk.fk order by fk.conname), '[]'::json)
    from fk where fk.conrelid = t.oid and fk.conparentid = 0
  ) as foreign_keys,
  (select json_agg(json_build_object(
      'name', lc.relname,
      'schema', ln.nspname,
      'foreignKeys', (select coalesce(json_agg(fk.fk order by fk.conname), '[]'::json) from fk where fk.conrelid = leaf.relid)
    ) order by lc.relname)
    from leaf join pg_catalog.pg_class lc on lc.oid = leaf.relid
    join pg_catalog.pg_namespace ln on ln.oid = lc.relnamespace
    where leaf.root = t.oid
  ) as partitions,
  -- The partitions that are partitioned themselves, which hold no rows of their own.
  (select json_agg(json_build_object('name', sc.relname, 'schema', sn.nspname) order by sc.relname)
    from pg_catalog.pg_partition_tree(t.oid) as s
    join pg_catalog.pg_class sc on sc.oid = s.relid
    join pg_catalog.pg_namespace sn on sn.oid = sc.relnamespace
    where t.kind = 'p' and not s.isleaf and s.level > 0
  ) as subpartitioned,
  -- Unique constraints, and unique indexes of plain columns without a condition (CREATE UNIQUE INDEX:
  -- what Prisma's @unique and Drizzle's uniqueIndex() make), which hold as a constraint does.
  (select coalesce(json_agg(json_build_object(
      'name', coalesce(co.conname, ic.relname),
      'columns', (select json_agg(a.attname order by k.ord) from unnest(i.indkey) with ordinality k(num, ord)
                  join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.num
                  where k.ord <= i.indnkeyatts),
      -- NULLS NOT DISTINCT (PostgreSQL 15): read through to_jsonb, a column older servers lack.
      'nullsNotDistinct', coalesce((to_jsonb(i) ->> 'indnullsnotdistinct')::boolean, false),
      'index', co.oid is null
    ) order by coalesce(co.conname, ic.relname)), '[]'::json)
    from pg_catalog.pg_index i
    join pg_catalog.pg_class ic on ic.oid = i.indexrelid
    left join pg_catalog.pg_constraint co on co.conindid = i.indexrelid and co.contype = 'u'
    where i.indrelid = t.oid and i.indisunique and not i.indisprimary
      and i.indexprs is null and i.indpred is null
      -- An index another constraint of its table owns (an exclusion constraint's) is not one; a
      -- foreign key referencing the index (of this table or another) names it too, and owns nothing.
      and (co.oid is not null or not exists (
        select from pg_catalog.pg_constraint x
        where x.conrelid = i.indrelid and x.conindid = i.indexrelid and x.contype <> 'f'))
  ) as uniques
from t
order by t.schema, t.name
`
