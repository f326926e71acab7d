DO $do$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'shard_fence_ddl_check')
      AND EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'shard_fence_partition_check') THEN
    RETURN;
  END IF;
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'shard_fence_ddl_check') THEN
      CREATE EVENT TRIGGER shard_fence_ddl_check ON ddl_command_start EXECUTE FUNCTION shard_fence_refuse_ddl();
    END IF;
    -- A partition created or attached later under a tenant table gets the table's TRUNCATE refusal and row-level
    -- security at once (shard_fence_secure_partitions).
    IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'shard_fence_partition_check') THEN
      CREATE EVENT TRIGGER shard_fence_partition_check ON ddl_command_end WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
        EXECUTE FUNCTION shard_fence_secure_partitions();
    END IF;
  ELSE
    RAISE WARNING 'shard fence: DDL refusal not installed on shard %: creating an event trigger needs a superuser '
      '(role % is not one); run the shard changelog once as a superuser', shard_fence_shard_id(), current_user;
  END IF;
END
$do$
