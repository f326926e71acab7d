CREATE OR REPLACE FUNCTION shard_fence_begin(p_tenant text, p_version bigint) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_state text;
  v_min bigint;
BEGIN
  SELECT state, min_version INTO v_state, v_min FROM shard_fence WHERE tenant_id = p_tenant;
  IF NOT FOUND THEN
    PERFORM shard_fence_reject(p_tenant, 'NOT_OWNED', p_version, -1);
  END IF;
  IF v_state NOT IN ('OWNED', 'FROZEN') THEN
    PERFORM shard_fence_reject(p_tenant, v_state, p_version, v_min);
  END IF;
  IF p_version < v_min THEN
    PERFORM shard_fence_reject(p_tenant, 'STALE', p_version, v_min);
  END IF;
  PERFORM set_config('shard_tenancy.tenant', p_tenant, true), set_config('shard_tenancy.version', p_version::text, true),
    set_config('shard_tenancy.role', '', true), set_config('shard_tenancy.fenced', '', true),
    set_config('shard_tenancy.capture', '', true);
END
$fn$
