CREATE OR REPLACE FUNCTION shard_fence_tenant_default(p_table text, p_column text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_table text;
  v_type oid;
  v_identity "char";
  v_generated "char";
  v_default text;
BEGIN
  SELECT string_agg(format('%I', part), '.' ORDER BY n) INTO v_table
    FROM unnest(parse_ident(p_table)) WITH ORDINALITY AS t(part, n);
  SELECT a.atttypid, a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid)
    INTO v_type, v_identity, v_generated, v_default
    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = v_table::regclass AND a.attname = p_column AND a.attnum > 0 AND NOT a.attisdropped;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'shard_fence_install: table % has no column %', p_table, p_column;
  END IF;
  -- Already the bound tenant (this function's default, of this or an earlier version), or a column PostgreSQL fills
  -- itself: left as it is.
  IF v_identity <> '' OR v_generated <> '' OR position('shard_tenancy.tenant' IN coalesce(v_default, '')) > 0 THEN
    RETURN;
  END IF;
  IF v_default IS NOT NULL THEN
    -- The application's own default: kept (the write check still refuses a row of another tenant), and said.
    RAISE WARNING 'shard_fence_install: the tenant column %.% has a default of its own (%), kept; an INSERT that '
      'omits the column gets that value, which the fence refuses unless it is the bound tenant; drop the default '
      '(ALTER TABLE % ALTER COLUMN % DROP DEFAULT) to let the shard fill the column with the bound tenant',
      p_table, p_column, v_default, v_table, quote_ident(p_column);
    RETURN;
  END IF;
  -- The bound tenant (unset, or '' once a transaction that set it has ended, gives NULL: the NOT NULL constraint or
  -- the write check refuses the row), cast to the column's type without its modifier: a tenant id longer than a
  -- varchar(n) column fails the assignment instead of being cut.
  BEGIN
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT nullif(current_setting(%L, true), %L)::%s', v_table,
      p_column, 'shard_tenancy.tenant', '', format_type(v_type, NULL));
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'shard_fence_install: cannot set the default of the tenant column %.% (%): an INSERT must name '
      'the column; let the table''s owner run the installation once to fill it with the bound tenant', p_table,
      p_column, SQLERRM;
  END;
END
$fn$
