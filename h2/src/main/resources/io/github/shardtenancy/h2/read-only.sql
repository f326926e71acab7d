-- Marks the session's transaction read-only for the fence trigger.
SELECT SET(@SHARD_READ_ONLY, TRUE)
