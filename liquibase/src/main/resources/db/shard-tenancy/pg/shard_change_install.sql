CREATE OR REPLACE FUNCTION shard_change_install(p_table text, p_column text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_parts text[] := parse_ident(p_table);
  v_columns text[] := parse_ident(p_column);
  v_table text;
  v_args text;
BEGIN
  IF array_length(v_columns, 1) <> 1 THEN
    RAISE EXCEPTION 'shard_change_install: % is not a column name', p_column;
  END IF;
  SELECT string_agg(format('%I', part), '.' ORDER BY n) INTO v_table
    FROM unnest(v_parts) WITH ORDINALITY AS t(part, n);
  SELECT string_agg(quote_literal(a.attname), ', ' ORDER BY k.n) INTO v_args
    FROM pg_index x
    CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
    JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
    WHERE x.indrelid = v_table::regclass AND x.indisprimary;
  IF v_args IS NULL THEN
    RAISE EXCEPTION 'shard_change_install: table % has no primary key; the mover''s change capture needs one', p_table;
  END IF;
  -- Already installed (this version, with its WHEN clause, for the same tenant column): nothing to do. Every move's
  -- mark step calls this; re-creating the trigger would lock the table against every tenant's writes for a moment.
  IF EXISTS (SELECT 1 FROM pg_trigger t
               JOIN shard_capture_table c ON c.table_name = array_to_string(v_parts, '.')
                                         AND c.tenant_column = v_columns[1]
              WHERE t.tgrelid = v_table::regclass AND t.tgname = 'shard_change_capture'
                AND pg_get_triggerdef(t.oid) LIKE '%shard_tenancy.capture%'
                AND t.tgnargs = (SELECT count(*) + 1 FROM pg_index x CROSS JOIN LATERAL unnest(x.indkey) AS k
                                  WHERE x.indrelid = v_table::regclass AND x.indisprimary)) THEN
    RETURN;
  END IF;
  INSERT INTO shard_capture_table (table_name, tenant_column) VALUES (array_to_string(v_parts, '.'), v_columns[1])
    ON CONFLICT (table_name) DO UPDATE SET tenant_column = EXCLUDED.tenant_column;
  -- WHEN: only a transaction whose first write found the tenant in shard_capture (shard_fence_check_row sets
  -- shard_tenancy.capture, under the fence row's lock) calls the PL/pgSQL function; every other write, the mover's
  -- own included (its role never sets it), skips it and queues no after-trigger event.
  EXECUTE format('CREATE OR REPLACE TRIGGER shard_change_capture AFTER INSERT OR UPDATE OR DELETE ON %s '
    || 'FOR EACH ROW WHEN (current_setting(''shard_tenancy.capture'', true) = ''on'') '
    || 'EXECUTE FUNCTION shard_change_capture(%s, %s)', v_table, quote_literal(v_columns[1]), v_args);
END
$fn$
