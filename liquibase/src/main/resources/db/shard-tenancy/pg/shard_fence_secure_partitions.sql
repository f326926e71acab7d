CREATE OR REPLACE FUNCTION shard_fence_secure_partitions() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
-- The event trigger function of shard_fence_partition_check (ddl_command_end): after a CREATE TABLE ... PARTITION OF
-- or an ALTER TABLE ... ATTACH PARTITION into the partition tree of a registered tenant table, gives every partition
-- of that tree the TRUNCATE refusal and the row-level security the table has (shard_fence_install_relation), in the
-- same transaction as the DDL, so that no partition is ever readable past the policy. Does nothing while
-- shard_fence_install runs (it does the same, and its own DDL would call this again).
DECLARE
  v_root regclass;
  v_column text;
  v_rls boolean;
BEGIN
  IF current_setting('shard_tenancy.installing', true) = 'on' THEN
    RETURN;
  END IF;
  FOR v_root IN SELECT DISTINCT pg_partition_root(d.objid) FROM pg_event_trigger_ddl_commands() d
      WHERE d.classid = 'pg_class'::regclass AND d.command_tag IN ('CREATE TABLE', 'ALTER TABLE')
        AND d.object_type IN ('table', 'table column') LOOP
    CONTINUE WHEN v_root IS NULL;
    -- A role that may not read the registrations (another application's, partitioning tables of its own) is let be.
    IF NOT has_table_privilege('shard_fence_table', 'SELECT') THEN
      RETURN;
    END IF;
    SELECT f.tenant_column INTO v_column FROM shard_fence_table f
      WHERE to_regclass(array_to_string(ARRAY(SELECT quote_ident(p) FROM unnest(string_to_array(f.table_name, '.'))
        AS p), '.')) = v_root;
    CONTINUE WHEN v_column IS NULL;
    SELECT c.relrowsecurity INTO v_rls FROM pg_class c WHERE c.oid = v_root;
    PERFORM set_config('shard_tenancy.installing', 'on', true);
    PERFORM shard_fence_install_relation(r.relid, v_column, v_rls) FROM pg_partition_tree(v_root) r;
    PERFORM set_config('shard_tenancy.installing', '', true);
  END LOOP;
END
$fn$
