-- Privileges of the current role that let SQL of a tenant's transaction reach other tenants' rows (docs/security.md),
-- one row each; nothing for a superuser, which rowLevelSecurityBypass reports. Owning the tenant tables counts only
-- where the DDL refusal is missing: its event trigger refuses a tenant transaction's ALTER TABLE, in a DO block too.
-- Parameter: the tenant tables' names (text[]).
SELECT finding FROM (
  SELECT 1 AS n, 'owns the tenant table(s) ' || string_agg(c.oid::regclass::text, ', ' ORDER BY c.oid::regclass::text)
      || ' and the shard has no DDL refusal (the event trigger shard_fence_ddl_check is missing or disabled): SQL of '
      || 'a tenant''s transaction, a DO block included, can switch their row-level security and triggers off (run '
      || 'the shard changelog once as a superuser, or make another role the owner)' AS finding
    FROM unnest(?::text[]) AS t(name) JOIN pg_class c ON c.oid = to_regclass(t.name)
    WHERE pg_has_role(current_user, c.relowner, 'USAGE')
      AND NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'shard_fence_ddl_check' AND evtenabled <> 'D')
    HAVING count(*) > 0
  UNION ALL
  SELECT 2, 'may act as role ' || quote_ident(r.rolname) || ', which '
      || CASE WHEN r.rolsuper THEN 'is a superuser' ELSE 'has BYPASSRLS' END || ' (SET ROLE; revoke the membership)'
    FROM pg_roles r
    WHERE (r.rolsuper OR r.rolbypassrls) AND r.rolname <> current_user AND pg_has_role(current_user, r.oid, 'MEMBER')
  UNION ALL
  SELECT 3, 'has CREATEROLE: it may grant itself other roles (ALTER ROLE ... NOCREATEROLE)'
    FROM pg_roles WHERE rolname = current_user AND rolcreaterole
  UNION ALL
  SELECT 4, 'may read the fence''s secret shard_fence_key (it owns it, or was granted SELECT): SQL of a tenant''s '
      || 'transaction could seal settings of its own and reach other tenants'' rows (REVOKE ALL ON shard_fence_key '
      || 'FROM the role, or make another role the owner)'
    WHERE to_regclass('shard_fence_key') IS NOT NULL AND has_table_privilege(current_user, 'shard_fence_key', 'SELECT')
) f
WHERE NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
ORDER BY n
