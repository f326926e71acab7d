CREATE OR REPLACE FUNCTION shard_fence_install_trigger(p_table text, p_missing_ok boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_parts text[] := parse_ident(p_table);
  v_name text := array_to_string(v_parts, '.');
  v_table text;
  v_column text;
  v_function text;
  v_keys text[];
  v_new_key text := 'NULL';
  v_old_key text := 'NULL';
  v_body text;
  v_oid oid;
  v_old text;
  v_schema text;
BEGIN
  SELECT string_agg(format('%I', part), '.' ORDER BY n) INTO v_table
    FROM unnest(v_parts) WITH ORDINALITY AS t(part, n);
  IF to_regclass(v_table) IS NULL AND p_missing_ok THEN
    RETURN;
  END IF;
  SELECT coalesce((SELECT tenant_column FROM shard_fence_table WHERE table_name = v_name),
      (SELECT tenant_column FROM shard_capture_table WHERE table_name = v_name))
    INTO v_column;
  IF v_column IS NULL THEN
    RAISE EXCEPTION 'shard_fence_install_trigger: table % is registered neither in shard_fence_table nor in '
      'shard_capture_table', p_table;
  END IF;
  -- Change capture (registered by shard_change_install): the primary key's columns, read now, as text; a composite
  -- key's values joined with U+001F (io.github.shardtenancy.internal.move.TablePlan.KEY_SEPARATOR).
  IF EXISTS (SELECT 1 FROM shard_capture_table WHERE table_name = v_name) THEN
    SELECT array_agg(a.attname::text ORDER BY k.n) INTO v_keys
      FROM pg_index x
      CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
      JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
      WHERE x.indrelid = v_table::regclass AND x.indisprimary;
    IF v_keys IS NULL THEN
      RAISE EXCEPTION 'shard_fence_install_trigger: table % has no primary key; the mover''s change capture needs one',
        p_table;
    END IF;
    SELECT string_agg(format('NEW.%I::text', k), ', '), string_agg(format('OLD.%I::text', k), ', ')
      INTO v_new_key, v_old_key FROM unnest(v_keys) AS k;
    IF array_length(v_keys, 1) > 1 THEN
      v_new_key := 'pg_catalog.concat_ws(pg_catalog.chr(31), ' || v_new_key || ')';
      v_old_key := 'pg_catalog.concat_ws(pg_catalog.chr(31), ' || v_old_key || ')';
    END IF;
  END IF;
  -- The schema of the fence's functions, which the row function names them by.
  SELECT quote_ident(n.nspname) INTO v_schema
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = to_regprocedure('shard_fence_sealed()');
  v_function := 'shard_fence_row_' || array_to_string(v_parts, '_');
  IF length(v_function) > 63 THEN
    v_function := left(v_function, 46) || '_' || left(md5(v_function), 16);
  END IF;
  -- The changed keys are logged under the registered table's name (v_name), not TG_TABLE_NAME: PostgreSQL clones
  -- a partitioned table's row trigger onto each of its partitions, where TG_TABLE_NAME is the partition's name
  -- (https://www.postgresql.org/docs/current/sql-createtrigger.html), which the mover's catch-up would not know.
  -- The first line of each branch accepts a row of the tenant whose fence shard_fence_begin found OWNED and not
  -- captured (shard_tenancy.fenced, trusted only while the transaction's seal matches: shard_fence_sealed), the
  -- common case, without calling another function of the fence; every other row goes to shard_fence_check_write.
  -- Qualified names throughout (the function runs with the search path of whoever writes, which could list a schema
  -- with an operator or function of the same name before pg_catalog). No WHEN
  -- clause: PostgreSQL prepares a trigger's WHEN expression again in every statement that fires it (TriggerEnabled in
  -- https://github.com/postgres/postgres/blob/master/src/backend/commands/trigger.c), which costs more than this
  -- function's first line.
  v_body := format($body$
BEGIN
  IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
    IF NEW.%1$I::text OPERATOR(pg_catalog.=) pg_catalog.current_setting('shard_tenancy.fenced', true)
        AND %4$s.shard_fence_sealed() THEN
      RETURN NEW;
    END IF;
    PERFORM %4$s.shard_fence_check_write(%5$L, NEW.%1$I::text, NULL, %2$s, NULL);
    RETURN NEW;
  ELSIF TG_OP OPERATOR(pg_catalog.=) 'UPDATE' THEN
    IF NEW.%1$I::text OPERATOR(pg_catalog.=) pg_catalog.current_setting('shard_tenancy.fenced', true)
        AND OLD.%1$I::text OPERATOR(pg_catalog.=) NEW.%1$I::text AND %4$s.shard_fence_sealed() THEN
      RETURN NEW;
    END IF;
    PERFORM %4$s.shard_fence_check_write(%5$L, NEW.%1$I::text, OLD.%1$I::text, %2$s, %3$s);
    RETURN NEW;
  END IF;
  IF OLD.%1$I::text OPERATOR(pg_catalog.=) pg_catalog.current_setting('shard_tenancy.fenced', true)
      AND %4$s.shard_fence_sealed() THEN
    RETURN OLD;
  END IF;
  PERFORM %4$s.shard_fence_check_write(%5$L, OLD.%1$I::text, NULL, %3$s, NULL);
  RETURN OLD;
END
$body$, v_column, v_new_key, v_old_key, v_schema, v_name);
  -- Replaced only if it changed, and the trigger created only if missing: every move's mark step gets here, and
  -- CREATE TRIGGER locks the table against every tenant's writes for a moment.
  SELECT p.oid, p.prosrc INTO v_oid, v_old FROM pg_proc p WHERE p.oid = to_regprocedure(format('%I()', v_function));
  IF v_old IS DISTINCT FROM v_body THEN
    EXECUTE format('CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS %L', v_function, v_body);
    v_oid := to_regprocedure(format('%I()', v_function));
  END IF;
  -- The triggers of earlier versions: one per operation with WHEN clauses, a statement check of UPDATE and DELETE
  -- (no longer needed: the fence lock, held from begin to end, keeps the fence row as the begin read it), and the
  -- AFTER capture trigger (capture is done by the row function above).
  FOR v_old IN SELECT t.tgname FROM pg_trigger t WHERE t.tgrelid = v_table::regclass AND t.tgname IN
      ('shard_fence_insert_check', 'shard_fence_update_check', 'shard_fence_delete_check',
       'shard_fence_statement_check', 'shard_change_capture') LOOP
    EXECUTE format('DROP TRIGGER %I ON %s', v_old, v_table);
  END LOOP;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = v_table::regclass AND t.tgname = 'shard_fence_write_check'
      AND t.tgfoid = v_oid AND t.tgqual IS NULL) THEN
    EXECUTE format('CREATE OR REPLACE TRIGGER shard_fence_write_check BEFORE INSERT OR UPDATE OR DELETE ON %s '
      || 'FOR EACH ROW EXECUTE FUNCTION %I()', v_table, v_function);
  END IF;
END
$fn$
