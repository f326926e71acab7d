DO $do$
BEGIN
  -- Each step only if not done yet: ALTER TABLE and CREATE TRIGGER lock shard_fence against every begin for a moment.
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'shard_fence'::regclass AND attname = 'captured'
      AND NOT attisdropped) THEN
    ALTER TABLE shard_fence ADD COLUMN captured boolean NOT NULL DEFAULT false;
  END IF;
  -- On a new shard, shard_capture is created later (shard-changes.xml), which runs this again.
  IF to_regclass('shard_capture') IS NULL THEN
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = 'shard_fence'::regclass
      AND tgname = 'shard_fence_capture_sync') THEN
    CREATE TRIGGER shard_fence_capture_sync BEFORE INSERT OR UPDATE ON shard_fence
      FOR EACH ROW EXECUTE FUNCTION shard_fence_capture_sync();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = 'shard_capture'::regclass
      AND tgname = 'shard_fence_capture_sync') THEN
    CREATE TRIGGER shard_fence_capture_sync AFTER INSERT OR UPDATE OR DELETE ON shard_capture
      FOR EACH ROW EXECUTE FUNCTION shard_fence_capture_sync();
  END IF;
  UPDATE shard_fence f SET captured = EXISTS (SELECT 1 FROM shard_capture c WHERE c.tenant_id = f.tenant_id)
    WHERE f.captured IS DISTINCT FROM EXISTS (SELECT 1 FROM shard_capture c WHERE c.tenant_id = f.tenant_id);
END
$do$
