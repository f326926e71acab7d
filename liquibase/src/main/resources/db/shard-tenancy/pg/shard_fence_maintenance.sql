CREATE OR REPLACE FUNCTION shard_fence_maintenance() RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  -- Only in a transaction of no tenant: a tenant's transaction (sealed, or holding the fence lock shard_fence_begin
  -- took, if its SQL cleared the settings) gets no cross-tenant reads this way.
  IF shard_fence_tenant_transaction() THEN
    PERFORM shard_fence_refuse('TENANT_SWITCHED');
  END IF;
  PERFORM set_config('shard_tenancy.tenant', '', true), set_config('shard_tenancy.version', '', true),
    set_config('shard_tenancy.role', 'maintenance', true), set_config('shard_tenancy.fenced', '', true),
    set_config('shard_tenancy.capture', '', true);
  PERFORM set_config('shard_tenancy.seal', shard_fence_seal(), true);
END
$fn$
