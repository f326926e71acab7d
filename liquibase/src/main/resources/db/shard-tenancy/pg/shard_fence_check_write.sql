CREATE OR REPLACE FUNCTION shard_fence_check_write(p_table text, p_row_tenant text, p_old_tenant text, p_key text,
  p_old_key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_tenant text := nullif(current_setting('shard_tenancy.tenant', true), '');
  v_version bigint := coalesce(nullif(current_setting('shard_tenancy.version', true), '')::bigint, -1);
  v_state text;
  v_min bigint;
BEGIN
  IF v_tenant IS NULL THEN
    PERFORM shard_fence_reject(p_row_tenant, 'NO_TENANT', -1, -1);
  END IF;
  -- Settings the library's functions did not set in this transaction (a set_config of the application's SQL): refused
  -- (42501, not retried), whatever they claim.
  IF NOT shard_fence_sealed() THEN
    PERFORM shard_fence_refuse('SETTINGS_CHANGED');
  END IF;
  IF p_row_tenant IS DISTINCT FROM v_tenant OR (p_old_tenant IS NOT NULL AND p_old_tenant <> v_tenant) THEN
    PERFORM shard_fence_reject(v_tenant, 'FOREIGN_ROW', v_version, -1);
  END IF;
  IF current_setting('shard_tenancy.role', true) = 'mover' THEN
    RETURN;
  END IF;
  IF current_setting('shard_tenancy.capture', true) = v_tenant THEN
    -- OWNED and captured at begin, which holds the tenant's fence lock: log the row's key (and its old key, if an
    -- UPDATE changed it) for the mover's catch-up. p_key is NULL on a table without change capture.
    IF p_key IS NOT NULL THEN
      INSERT INTO shard_change (tenant_id, table_name, row_key) VALUES (v_tenant, p_table, p_key);
      IF p_old_key IS DISTINCT FROM p_key AND p_old_key IS NOT NULL THEN
        INSERT INTO shard_change (tenant_id, table_name, row_key) VALUES (v_tenant, p_table, p_old_key);
      END IF;
    END IF;
    RETURN;
  END IF;
  -- shard_fence_begin let this transaction read but not write: reject with the reason (the fence row cannot have
  -- changed since, under the lock the transaction holds).
  SELECT state, min_version INTO v_state, v_min FROM shard_fence WHERE tenant_id = v_tenant;
  IF NOT FOUND THEN
    PERFORM shard_fence_reject(v_tenant, 'NOT_OWNED', v_version, -1);
  END IF;
  IF v_state <> 'OWNED' THEN
    PERFORM shard_fence_reject(v_tenant, v_state, v_version, v_min);
  END IF;
  IF v_version < v_min THEN
    PERFORM shard_fence_reject(v_tenant, 'STALE', v_version, v_min);
  END IF;
  -- Sealed, OWNED and not stale, yet neither fenced nor captured: not a state shard_fence_begin leaves; rejected.
  PERFORM shard_fence_reject(v_tenant, 'NO_TENANT', v_version, v_min);
END
$fn$
