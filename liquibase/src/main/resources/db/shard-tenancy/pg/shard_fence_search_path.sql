DO $do$
DECLARE
  v_path text := format('SET search_path = %I, pg_temp', current_schema());
BEGIN
  -- The functions that set the fence's settings seal them (shard_fence_seal), which reads the shard's secret: they run
  -- as their owner. Those, and the write check's slow path and the TRUNCATE and DDL refusals, run with a search path of their own
  -- (the shard's schema, pg_temp last), so that no object of the caller's search path (a temporary table named
  -- shard_fence, an operator or function of a schema listed before pg_catalog) stands in for the shard's.
  EXECUTE format('ALTER FUNCTION shard_fence_begin(text, bigint) SECURITY DEFINER %s', v_path);
  EXECUTE format('ALTER FUNCTION shard_fence_mover(text) SECURITY DEFINER %s', v_path);
  EXECUTE format('ALTER FUNCTION shard_fence_maintenance() SECURITY DEFINER %s', v_path);
  EXECUTE format('ALTER FUNCTION shard_fence_check_write(text, text, text, text, text) %s', v_path);
  EXECUTE format('ALTER FUNCTION shard_fence_refuse_ddl() %s', v_path);
  EXECUTE format('ALTER FUNCTION shard_fence_refuse_truncate() %s', v_path);
  EXECUTE format('ALTER FUNCTION shard_fence_secure_partitions() %s', v_path);
END
$do$
