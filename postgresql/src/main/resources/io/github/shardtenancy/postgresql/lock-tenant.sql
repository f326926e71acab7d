-- The tenant's exclusive fence lock until the end of the transaction (shard_fence_lock, shard.xml). Parameter: tenant id.
SELECT shard_fence_lock(?)
