CREATE OR REPLACE FUNCTION shard_fence_install_relation(p_table regclass, p_column text, p_row_security boolean)
RETURNS void LANGUAGE plpgsql AS $fn$
-- The TRUNCATE refusal and, if asked, row-level security of one relation of a tenant table: the table, or one of its
-- partitions (shard_fence_install). p_column is the tenant column's name, unquoted.
DECLARE
  v_table text := p_table::text;
  v_column text := p_column;
  v_rls boolean;
  v_policy boolean;
  v_current boolean;
BEGIN
  -- TRUNCATE fires no row trigger and ignores row-level security: refused outright on a tenant-bound connection.
  -- Created only if missing: creating a trigger needs the table's owner (or the TRIGGER privilege), which an
  -- application role that starts after the owner's installation has not.
  -- Created again where an earlier version's (whose condition trusted the settings) is in place.
  IF NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = v_table::regclass
      AND t.tgname = 'shard_fence_truncate_check'
      AND position('shard_fence_ddl_refused' IN pg_get_triggerdef(t.oid)) > 0) THEN
    EXECUTE format('CREATE OR REPLACE TRIGGER shard_fence_truncate_check BEFORE TRUNCATE ON %s '
      || 'FOR EACH STATEMENT WHEN (%I.shard_fence_ddl_refused()) EXECUTE FUNCTION shard_fence_refuse_truncate()',
      v_table, current_schema());
  END IF;
  -- Row-level security: a session sees (and writes) the rows of its own tenant only, or every row under the mover's
  -- or the maintenance mark, settings it trusts only while the transaction's seal matches (shard_fence_sealed). The
  -- policy reads "tenant = bound tenant OR tenant >= floor", the floor '' (below every string: every row) under a mark,
  -- else NULL: each bound a sub-select, so computed once per statement, and both arms index conditions on the tenant
  -- column, so the planner can use the tenant index (a BitmapOr whose second scan ends at once when the floor is
  -- NULL), where an OR with a condition on a setting alone forces a full scan. The expression is bound when the
  -- policy is created, whatever the search path of a later query. WITH CHECK (true): which tenant a written row
  -- belongs to is the row trigger's to check (shard_fence_install_trigger), once per row; the policy would check it
  -- again, once more per statement. A row whose tenant column is NULL is visible only
  -- to superusers and BYPASSRLS roles. FORCE makes it apply to the table's owner too; superusers and roles with
  -- BYPASSRLS are never subject to it (https://www.postgresql.org/docs/current/ddl-rowsecurity.html).
  -- Changed only when not already as asked, since ALTER TABLE and CREATE POLICY need the table's owner: an
  -- application role that is not the owner can then still run the installation at start-up.
  SELECT c.relrowsecurity AND c.relforcerowsecurity,
      EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'shard_fence_tenant')
    INTO v_rls, v_policy FROM pg_class c WHERE c.oid = v_table::regclass;
  -- An earlier version's policy, which trusted the settings: created again.
  v_current := EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = v_table::regclass
    AND p.polname = 'shard_fence_tenant'
    AND position('shard_fence_sealed' IN pg_get_expr(p.polqual, p.polrelid)) > 0
    AND pg_get_expr(p.polwithcheck, p.polrelid) = 'true');
  IF p_row_security AND NOT (v_rls AND v_policy AND v_current) THEN
    EXECUTE format('DROP POLICY IF EXISTS shard_fence_tenant ON %s', v_table);
    EXECUTE format('CREATE POLICY shard_fence_tenant ON %1$s USING (%2$I = (SELECT CASE WHEN %3$I.shard_fence_sealed() '
      || 'THEN nullif(current_setting(''shard_tenancy.tenant'', true), '''') END) OR %2$I >= (SELECT CASE WHEN '
      || 'current_setting(''shard_tenancy.role'', true) IN (''mover'', ''maintenance'') AND %3$I.shard_fence_sealed() '
      || 'THEN '''' END)) WITH CHECK (true)', v_table, v_column, current_schema());
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', v_table);
    EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', v_table);
  ELSIF NOT p_row_security AND (v_rls OR v_policy) THEN
    EXECUTE format('DROP POLICY IF EXISTS shard_fence_tenant ON %s', v_table);
    EXECUTE format('ALTER TABLE %s NO FORCE ROW LEVEL SECURITY', v_table);
    EXECUTE format('ALTER TABLE %s DISABLE ROW LEVEL SECURITY', v_table);
  END IF;
END
$fn$
