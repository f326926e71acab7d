CREATE OR REPLACE FUNCTION shard_fence_shard_id() RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT coalesce((SELECT shard_id FROM shard_fence_identity WHERE id = 1), '?')
$fn$
