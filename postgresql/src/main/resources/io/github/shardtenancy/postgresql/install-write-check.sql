-- Installs the write checks, the TRUNCATE refusal and, if asked, row-level security on a tenant table.
-- Parameters: table, tenant column, row-level security on (boolean).
SELECT shard_fence_install(?, ?, ?)
