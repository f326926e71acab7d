-- Why COPY into a table may not run with session_replication_role = replica, or NULL if it may. Replica turns off
-- the table's rules and its triggers enabled ORIGIN (the default) and turns on those enabled REPLICA
-- (https://www.postgresql.org/docs/current/sql-altertable.html, ENABLE REPLICA TRIGGER). It may only when the only
-- such triggers that an INSERT fires (tgtype bit 2, TRIGGER_TYPE_INSERT in
-- https://github.com/postgres/postgres/blob/master/src/include/catalog/pg_trigger.h) are the fence's row trigger and
-- the internal triggers of foreign keys (the copier checks those keys itself after the copy; not MATCH FULL ones,
-- whose check it does not repeat), and there is no rule. A DEFERRABLE unique constraint's check is an internal
-- trigger too, not exempted. Nor may it when a column compares other than byte by byte (citext, or a nondeterministic
-- collation, https://www.postgresql.org/docs/current/collation.html#COLLATION-NONDETERMINISTIC): the copy's
-- "tenant column = tenant" could then select another tenant's rows (ids differing only in case), which the fence
-- trigger's exact comparison rejects.
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
  ELSE (SELECT 'trigger ' || t.tgname || ' would not fire' FROM pg_trigger t
    WHERE t.tgrelid = c.oid AND t.tgenabled IN ('O', 'R') AND (t.tgtype::int & 4) <> 0
      AND NOT (t.tgname = 'shard_fence_write_check' AND NOT t.tgisinternal AND t.tgenabled = 'O')
      AND NOT (t.tgisinternal AND t.tgenabled = 'O' AND EXISTS (SELECT 1 FROM pg_constraint k
        WHERE k.oid = t.tgconstraint AND k.contype = 'f' AND (k.conrelid <> c.oid OR k.confmatchtype <> 'f')))
    ORDER BY t.tgname LIMIT 1)
END
FROM (SELECT to_regclass(?) AS oid) x LEFT JOIN pg_class c ON c.oid = x.oid
