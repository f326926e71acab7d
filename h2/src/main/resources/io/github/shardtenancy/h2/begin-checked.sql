-- Raises the fence's rejection in its own words (or accepts and binds, if the fence changed in between).
-- Parameters: tenant id, directory version.
CALL SHARD_FENCE_BEGIN(?, ?)
