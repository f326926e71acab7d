CREATE OR REPLACE FUNCTION shard_fence_rls_floor() RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT CASE WHEN current_setting('shard_tenancy.role', true) IN ('mover', 'maintenance') THEN '' END
$fn$
