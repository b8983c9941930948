-- Every object of the pg_dof extension with its definition, one line each, sorted: two
-- databases whose outputs are equal have the same extension catalog (upgrade.sh).
WITH members AS (
    SELECT d.classid, d.objid FROM pg_depend d
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
      AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_dof')
)
SELECT line FROM (
    SELECT 'function ' || p.oid::regprocedure || ' '
           || CASE WHEN p.prokind = 'a' -- pg_get_functiondef refuses an aggregate: its parts instead
                   THEN (SELECT 'aggregate sfunc=' || a.aggtransfn::regprocedure || ' stype=' || a.aggtranstype::regtype
                                || ' initcond=' || coalesce(a.agginitval, '') || ' parallel=' || p.proparallel::text
                         FROM pg_aggregate a WHERE a.aggfnoid = p.oid)
                   ELSE pg_get_functiondef(p.oid) END
           || ' config=' || coalesce(array_to_string(p.proconfig, ','), '') || ' acl=' || coalesce(p.proacl::text, '')
           || ' comment=' || coalesce(obj_description(p.oid, 'pg_proc'), '') AS line
    FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    UNION ALL
    SELECT 'relation ' || c.relname || ' kind=' || c.relkind::text || ' rls=' || c.relrowsecurity
           || ' options=' || coalesce(array_to_string(c.reloptions, ','), '') || ' acl=' || coalesce(c.relacl::text, '')
           || ' comment=' || coalesce(obj_description(c.oid, 'pg_class'), '')
           || ' columns=' || coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                                                      || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                                                      || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
                                                      || CASE WHEN a.attidentity <> '' THEN ' identity ' || a.attidentity::text ELSE '' END,
                                                      ', ' ORDER BY a.attnum)
                                        FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                                        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
           || ' view=' || coalesce(CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END, '')
    FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
    UNION ALL
    SELECT 'index ' || pg_get_indexdef(i.indexrelid)
    FROM members m JOIN pg_index i ON m.classid = 'pg_class'::regclass AND i.indrelid = m.objid
    UNION ALL
    SELECT 'constraint ' || con.conrelid::regclass || ' ' || con.conname || ' ' || pg_get_constraintdef(con.oid)
    FROM members m JOIN pg_constraint con ON m.classid = 'pg_class'::regclass AND con.conrelid = m.objid
    UNION ALL
    SELECT 'trigger ' || pg_get_triggerdef(t.oid)
    FROM members m JOIN pg_trigger t ON m.classid = 'pg_class'::regclass AND t.tgrelid = m.objid AND NOT t.tgisinternal
    UNION ALL
    SELECT 'policy ' || pol.polrelid::regclass || ' ' || pol.polname || ' ' || pol.polcmd::text || ' '
           || coalesce(pg_get_expr(pol.polqual, pol.polrelid), '') || ' ' || coalesce(pg_get_expr(pol.polwithcheck, pol.polrelid), '')
           || ' comment=' || coalesce(obj_description(pol.oid, 'pg_policy'), '')
    FROM members m JOIN pg_policy pol ON m.classid = 'pg_class'::regclass AND pol.polrelid = m.objid
    UNION ALL
    SELECT 'event trigger ' || e.evtname || ' on ' || e.evtevent || ' tags=' || coalesce(array_to_string(e.evttags, ','), '')
           || ' function=' || e.evtfoid::regproc || ' enabled=' || e.evtenabled::text
           || ' comment=' || coalesce(obj_description(e.oid, 'pg_event_trigger'), '')
    FROM members m JOIN pg_event_trigger e ON m.classid = 'pg_event_trigger'::regclass AND e.oid = m.objid
    UNION ALL
    SELECT 'type ' || t.typname FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
    UNION ALL
    SELECT 'text search configuration ' || c.cfgname || ' parser=' || c.cfgparser::regclass::text
           || ' comment=' || coalesce(obj_description(c.oid, 'pg_ts_config'), '')
           || ' mappings=' || (SELECT string_agg(t.alias || ':' || map.dicts, ',' ORDER BY t.alias)
                               FROM (SELECT maptokentype, string_agg(mapdict::regdictionary::text, '+' ORDER BY mapseqno) AS dicts
                                     FROM pg_ts_config_map WHERE mapcfg = c.oid GROUP BY maptokentype) map
                               JOIN ts_token_type(c.cfgparser) t ON t.tokid = map.maptokentype)
    FROM members m JOIN pg_ts_config c ON m.classid = 'pg_ts_config'::regclass AND c.oid = m.objid
    UNION ALL
    SELECT 'config_dump ' || c.relname || ' ' || coalesce(e.extcondition[array_position(e.extconfig, c.oid)], '')
    FROM pg_extension e CROSS JOIN unnest(e.extconfig) AS cfg(oid) JOIN pg_class c ON c.oid = cfg.oid
    WHERE e.extname = 'pg_dof'
) objects
ORDER BY line;
