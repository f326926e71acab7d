CREATE OR REPLACE FUNCTION shard_fence_mover(p_tenant text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config('shard_tenancy.tenant', p_tenant, true), set_config('shard_tenancy.version', '', true),
    set_config('shard_tenancy.role', 'mover', true), set_config('shard_tenancy.fenced', '', true),
    set_config('shard_tenancy.capture', '', true);
END
$fn$
