CREATE OR REPLACE FUNCTION shard_fence_reject(p_tenant text, p_reason text, p_seen bigint, p_required bigint)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION USING ERRCODE = '40001',
    MESSAGE = 'shard fence: tenant ''' || coalesce(p_tenant, 'null') || ''' rejected on shard '''
      || shard_fence_shard_id() || ''': ' || p_reason || ' (directory version seen ' || p_seen
      || ', required ' || p_required || ')';
END
$fn$
