-- Finds the _ROWID_ of a tenant's fence row, once per tenant: later begins read the row by it. Parameter: tenant id.
SELECT _ROWID_ FROM shard_fence WHERE tenant_id = ?
