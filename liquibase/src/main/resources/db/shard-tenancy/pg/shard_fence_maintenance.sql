CREATE OR REPLACE FUNCTION shard_fence_maintenance() RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config('shard_tenancy.tenant', '', true), set_config('shard_tenancy.version', '', true),
    set_config('shard_tenancy.role', 'maintenance', true), set_config('shard_tenancy.fenced', '', true),
    set_config('shard_tenancy.capture', '', true);
END
$fn$
