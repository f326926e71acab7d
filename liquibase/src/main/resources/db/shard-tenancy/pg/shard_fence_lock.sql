CREATE OR REPLACE FUNCTION shard_fence_lock(p_tenant text) RETURNS void LANGUAGE sql AS $fn$
  -- The tenant's fence lock, exclusive, until the end of the transaction: an advisory lock in the two-int4 key space
  -- (class 1936225382, the ASCII bytes 'shtf', and the tenant's hashtext), apart from applications' one-bigint
  -- advisory locks (https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS). Every tenant
  -- transaction holds it shared from shard_fence_begin on; two tenants whose hashes collide share the lock.
  SELECT pg_advisory_xact_lock(1936225382, hashtext(p_tenant))
$fn$
