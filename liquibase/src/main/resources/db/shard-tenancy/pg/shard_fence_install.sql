CREATE OR REPLACE FUNCTION shard_fence_install(p_table text, p_column text, p_row_security boolean DEFAULT true)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_parts text[] := parse_ident(p_table);
  v_columns text[] := parse_ident(p_column);
  v_column text;
  v_table text;
BEGIN
  IF array_length(v_columns, 1) <> 1 THEN
    RAISE EXCEPTION 'shard_fence_install: % is not a column name', p_column;
  END IF;
  v_column := v_columns[1];
  SELECT string_agg(format('%I', part), '.' ORDER BY n) INTO v_table
    FROM unnest(v_parts) WITH ORDINALITY AS t(part, n);
  INSERT INTO shard_fence_table (table_name, tenant_column) VALUES (array_to_string(v_parts, '.'), v_column)
    ON CONFLICT (table_name) DO UPDATE SET tenant_column = EXCLUDED.tenant_column;
  PERFORM shard_fence_install_trigger(p_table);
  -- An INSERT that omits the tenant column gets the bound tenant (plain JDBC); the row trigger checks it as any other.
  PERFORM shard_fence_tenant_default(p_table, v_column);
  -- The TRUNCATE refusal and row-level security on the table and on every partition below it, however deep: PostgreSQL
  -- clones a partitioned table's row triggers onto its partitions, but not its statement triggers nor its row-level
  -- security, which apply only to statements that name the parent
  -- (https://www.postgresql.org/docs/current/ddl-rowsecurity.html, sql-createtrigger.html), so a statement naming a
  -- partition would pass both. Partitions created or attached later get them from the event trigger
  -- shard_fence_partition_check (shard_fence_ddl_check_install), or from the next installation.
  PERFORM set_config('shard_tenancy.installing', 'on', true);
  -- (pg_partition_tree answers nothing for a table that is neither partitioned nor a partition.)
  PERFORM shard_fence_install_relation(r.relid, v_column, p_row_security)
    FROM (SELECT v_table::regclass AS relid UNION SELECT t.relid FROM pg_partition_tree(v_table::regclass) t) r;
  PERFORM set_config('shard_tenancy.installing', '', true);
END
$fn$
