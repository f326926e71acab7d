CREATE OR REPLACE FUNCTION shard_fence_capture_sync() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- shard_fence.captured = the tenant is listed in shard_capture: set on every insert or update of a fence row
  -- (BEFORE, on shard_fence), and refreshed on the tenant's fence row after every change of shard_capture (AFTER, on
  -- shard_capture), so that shard_fence_begin reads the capture with the fence row, from one table. Both changes take
  -- the tenant's fence lock first (shard_fence_lock), so the begin of a transaction of the tenant never runs between
  -- a change of shard_capture and its refresh.
  IF TG_TABLE_NAME = 'shard_fence' THEN
    NEW.captured := EXISTS (SELECT 1 FROM shard_capture c WHERE c.tenant_id = NEW.tenant_id);
    RETURN NEW;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE shard_fence SET captured = captured WHERE tenant_id = NEW.tenant_id;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE shard_fence SET captured = captured WHERE tenant_id = OLD.tenant_id;
  END IF;
  RETURN NULL;
END
$fn$
