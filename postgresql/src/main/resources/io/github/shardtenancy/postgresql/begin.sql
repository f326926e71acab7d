-- Checks the fence and binds the variables until the end of the transaction (shard_fence_begin, shard.xml).
-- Parameters: tenant id, directory version.
SELECT shard_fence_begin(?, ?)
