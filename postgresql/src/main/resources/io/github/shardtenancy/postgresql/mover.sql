-- Marks the current transaction (only it) as the mover's for one tenant. Parameter: tenant id.
SELECT shard_fence_mover(?)
