CREATE OR REPLACE FUNCTION shard_fence_check_row(p_row_tenant text, p_old_tenant text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  v_tenant text := nullif(current_setting('shard_tenancy.tenant', true), '');
  v_version bigint := coalesce(nullif(current_setting('shard_tenancy.version', true), '')::bigint, -1);
  v_role text := nullif(current_setting('shard_tenancy.role', true), '');
  v_state text;
  v_min bigint;
BEGIN
  IF v_tenant IS NULL THEN
    PERFORM shard_fence_reject(p_row_tenant, 'NO_TENANT', -1, -1);
  END IF;
  IF p_row_tenant IS DISTINCT FROM v_tenant OR (p_old_tenant IS NOT NULL AND p_old_tenant <> v_tenant) THEN
    PERFORM shard_fence_reject(v_tenant, 'FOREIGN_ROW', v_version, -1);
  END IF;
  IF v_role = 'mover' THEN
    RETURN;
  END IF;
  IF current_setting('shard_tenancy.fenced', true) = v_tenant THEN
    RETURN; -- this transaction already checked the fence row and holds it FOR SHARE: it cannot have changed
  END IF;
  -- FOR SHARE conflicts with the UPDATE of a freeze (FOR KEY SHARE would not): the freeze waits for this
  -- transaction, and a write that waited for a freeze reads the frozen row (READ COMMITTED re-reads a locked row).
  SELECT state, min_version INTO v_state, v_min FROM shard_fence WHERE tenant_id = v_tenant FOR SHARE;
  IF NOT FOUND THEN
    PERFORM shard_fence_reject(v_tenant, 'NOT_OWNED', v_version, -1);
  END IF;
  IF v_state NOT IN ('OWNED', 'FROZEN') THEN
    PERFORM shard_fence_reject(v_tenant, v_state, v_version, v_min);
  END IF;
  IF v_state = 'FROZEN' THEN
    PERFORM shard_fence_reject(v_tenant, 'FROZEN', v_version, v_min);
  END IF;
  IF v_version < v_min THEN
    PERFORM shard_fence_reject(v_tenant, 'STALE', v_version, v_min);
  END IF;
  -- Remembered until the transaction ends (and undone with the lock if a savepoint before it is rolled back), with
  -- whether the online mover captures this tenant's writes: capture is switched on and off under this row's lock
  -- (shard-changes.xml), which this transaction now holds, so the answer stays true until it ends.
  PERFORM set_config('shard_tenancy.fenced', v_tenant, true), set_config('shard_tenancy.capture',
    CASE WHEN EXISTS (SELECT 1 FROM shard_capture WHERE tenant_id = v_tenant) THEN 'on' ELSE '' END, true);
END
$fn$
