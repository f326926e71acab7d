CREATE OR REPLACE FUNCTION shard_change_capture() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  v_row jsonb;
  v_tenant text;
  v_key text;
  v_old_key text;
BEGIN
  IF coalesce(current_setting('shard_tenancy.role', true), '') = 'mover' THEN
    RETURN NULL;
  END IF;
  -- No tenant of this shard is being moved (the usual case): nothing to log, and no row to serialise.
  IF NOT EXISTS (SELECT 1 FROM shard_capture) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    v_row := to_jsonb(OLD);
  ELSE
    v_row := to_jsonb(NEW);
  END IF;
  v_tenant := v_row ->> TG_ARGV[0];
  IF NOT EXISTS (SELECT 1 FROM shard_capture WHERE tenant_id = v_tenant) THEN
    RETURN NULL;
  END IF;
  SELECT string_agg(v_row ->> TG_ARGV[i], chr(31) ORDER BY i) INTO v_key FROM generate_series(1, TG_NARGS - 1) AS i;
  INSERT INTO shard_change (tenant_id, table_name, row_key) VALUES (v_tenant, TG_TABLE_NAME, v_key);
  IF TG_OP = 'UPDATE' THEN
    v_row := to_jsonb(OLD);
    SELECT string_agg(v_row ->> TG_ARGV[i], chr(31) ORDER BY i) INTO v_old_key
      FROM generate_series(1, TG_NARGS - 1) AS i;
    IF v_old_key IS DISTINCT FROM v_key THEN
      INSERT INTO shard_change (tenant_id, table_name, row_key) VALUES (v_tenant, TG_TABLE_NAME, v_old_key);
    END IF;
  END IF;
  RETURN NULL;
END
$fn$
