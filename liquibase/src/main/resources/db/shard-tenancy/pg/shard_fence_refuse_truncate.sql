CREATE OR REPLACE FUNCTION shard_fence_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM shard_fence_refuse('TRUNCATE_REFUSED');
  RETURN NULL;
END
$fn$
