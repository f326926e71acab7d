-- Reads the tenant's fence row (NULLs when there is none) and binds tenant, version and no role, in one statement.
-- Parameters: tenant id, directory version, tenant id.
SELECT f.state, f.min_version, SET(@SHARD_TENANT, ?), SET(@SHARD_VERSION, ?), SET(@SHARD_ROLE, NULL)
FROM (VALUES 0) AS one LEFT JOIN shard_fence f ON f.tenant_id = ?
