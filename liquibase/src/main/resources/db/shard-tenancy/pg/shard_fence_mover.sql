CREATE OR REPLACE FUNCTION shard_fence_mover(p_tenant text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  -- Only in a transaction of no tenant (see shard_fence_maintenance).
  IF shard_fence_tenant_transaction() THEN
    PERFORM shard_fence_refuse('TENANT_SWITCHED');
  END IF;
  -- fenced = the tenant: the mover's rows of its tenant take the row trigger's first line (its copy and catch-up
  -- write many), and are not captured; any other tenant's row reaches the slow path and is rejected (FOREIGN_ROW).
  PERFORM set_config('shard_tenancy.tenant', p_tenant, true), set_config('shard_tenancy.version', '', true),
    set_config('shard_tenancy.role', 'mover', true), set_config('shard_tenancy.fenced', p_tenant, true),
    set_config('shard_tenancy.capture', '', true);
  PERFORM set_config('shard_tenancy.seal', shard_fence_seal(), true);
END
$fn$
