CREATE OR REPLACE FUNCTION shard_directory_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  v_entry text;
  v_count bigint;
BEGIN
  SELECT min(e.tenant_id || '/' || e.shard_id || '/' || e.state || '/' || e.epoch || '/'
      || coalesce(e.target_shard_id, '')), count(*)
    INTO v_entry, v_count FROM shard_directory_entry e WHERE e.version = NEW.version;
  IF v_count = 1 THEN
    PERFORM pg_notify('shard_directory', NEW.version || '/' || v_entry);
  ELSE
    PERFORM pg_notify('shard_directory', NEW.version::text);
  END IF;
  RETURN NULL;
END
$fn$
