-- Clears every fence variable of the session, the read-only mark included.
SELECT SET(@SHARD_TENANT, NULL), SET(@SHARD_VERSION, NULL), SET(@SHARD_ROLE, NULL), SET(@SHARD_READ_ONLY, NULL)
