CREATE OR REPLACE FUNCTION shard_change_install(p_table text, p_column text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_parts text[] := parse_ident(p_table);
  v_columns text[] := parse_ident(p_column);
  v_table text;
BEGIN
  IF array_length(v_columns, 1) <> 1 THEN
    RAISE EXCEPTION 'shard_change_install: % is not a column name', p_column;
  END IF;
  SELECT string_agg(format('%I', part), '.' ORDER BY n) INTO v_table
    FROM unnest(v_parts) WITH ORDINALITY AS t(part, n);
  IF NOT EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = v_table::regclass AND x.indisprimary) THEN
    RAISE EXCEPTION 'shard_change_install: table % has no primary key; the mover''s change capture needs one', p_table;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM shard_capture_table WHERE table_name = array_to_string(v_parts, '.')
                   AND tenant_column = v_columns[1]) THEN
    INSERT INTO shard_capture_table (table_name, tenant_column) VALUES (array_to_string(v_parts, '.'), v_columns[1])
      ON CONFLICT (table_name) DO UPDATE SET tenant_column = EXCLUDED.tenant_column;
  END IF;
  -- The capture is a branch of the fence's row function (shard_fence_install_trigger), regenerated with the primary
  -- key's columns; left alone if already so (every move's mark step gets here).
  PERFORM shard_fence_install_trigger(p_table);
END
$fn$
