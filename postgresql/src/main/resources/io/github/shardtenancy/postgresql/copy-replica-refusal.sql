-- Why the mover's writes into a table (COPY, the catch-up's upserts and deletes, the clean's and an abort's deletes)
-- may not run with session_replication_role = replica, or NULL if they may. Replica turns off the table's rules and
-- its triggers enabled ORIGIN (the default) and turns on those enabled REPLICA
-- (https://www.postgresql.org/docs/current/sql-altertable.html, ENABLE REPLICA TRIGGER). Turned off, and so allowed:
-- every trigger that is not internal and enabled ORIGIN, that is the fence's row trigger (the mover's rows are the
-- moving tenant's, which it would accept) and the application's triggers (which is what replica is for: a move must
-- not fire them); the internal checks of foreign keys on the referencing side (not MATCH FULL: the mover checks the
-- rows it wrote itself afterwards); and the internal actions of foreign keys on the referenced side when the
-- referencing table is a tenant table of the fence (shard_fence_table), whose rows the mover writes itself. Not
-- allowed: a rule; a trigger enabled REPLICA (it would fire only because of the move); any other internal trigger
-- (a DEFERRABLE unique constraint's check, a foreign key from a table that is not a tenant table, MATCH FULL);
-- a column that compares other than byte by byte (citext, or a nondeterministic collation,
-- https://www.postgresql.org/docs/current/collation.html#COLLATION-NONDETERMINISTIC): the mover's
-- "tenant column = tenant" could then select another tenant's rows (ids differing only in case), which the fence
-- trigger's exact comparison rejects. Only triggers on INSERT, UPDATE or DELETE count (tgtype bits 4, 8, 16:
-- TRIGGER_TYPE_INSERT, _DELETE, _UPDATE in
-- https://github.com/postgres/postgres/blob/master/src/include/catalog/pg_trigger.h); enabled ALWAYS fire either way.
-- Parameter: the table name.
SELECT CASE
  WHEN c.oid IS NULL THEN 'the table was not found'
  WHEN c.relkind <> 'r' THEN 'the table is not a plain table (relkind ' || c.relkind::text || ')'
  WHEN EXISTS (SELECT 1 FROM pg_rewrite r WHERE r.ev_class = c.oid AND r.ev_enabled <> 'D')
    THEN 'the table has a rule'
  WHEN EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        AND (ty.typname = 'citext' OR NOT coalesce(co.collisdeterministic, true)))
    THEN 'a column compares other than byte by byte (citext or a nondeterministic collation)'
  ELSE (SELECT 'trigger ' || t.tgname || CASE WHEN t.tgenabled = 'R' THEN ' is enabled REPLICA and would fire'
      ELSE ' would not fire' END
    FROM pg_trigger t
    WHERE t.tgrelid = c.oid AND t.tgenabled IN ('O', 'R') AND (t.tgtype::int & 28) <> 0
      AND NOT (NOT t.tgisinternal AND t.tgenabled = 'O')
      AND NOT (t.tgisinternal AND t.tgenabled = 'O' AND EXISTS (SELECT 1 FROM pg_constraint k
        WHERE k.oid = t.tgconstraint AND k.contype = 'f' AND (
          (k.conrelid = c.oid AND k.confmatchtype <> 'f'
            AND (SELECT p.proname FROM pg_proc p WHERE p.oid = t.tgfoid) LIKE 'RI\_FKey\_check\_%')
          OR (k.confrelid = c.oid
            AND (SELECT p.proname FROM pg_proc p WHERE p.oid = t.tgfoid) NOT LIKE 'RI\_FKey\_check\_%'
            AND EXISTS (SELECT 1 FROM shard_fence_table f WHERE to_regclass(f.table_name) = k.conrelid)))))
    ORDER BY t.tgname LIMIT 1)
END
FROM (SELECT to_regclass(?) AS oid) x LEFT JOIN pg_class c ON c.oid = x.oid
