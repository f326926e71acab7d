-- Marks the session as the mover's for one tenant. Parameter: tenant id.
CALL SHARD_FENCE_MOVER(?)
