-- Unbinds the route only, keeping a read-only mark set for the transaction before the begin.
SELECT SET(@SHARD_TENANT, NULL), SET(@SHARD_VERSION, NULL), SET(@SHARD_ROLE, NULL)
