-- Marks the current transaction as library maintenance that reads across tenants.
SELECT shard_fence_maintenance()
