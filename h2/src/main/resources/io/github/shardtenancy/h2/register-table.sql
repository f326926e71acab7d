-- Registers a tenant table and its tenant column in a trigger registry table.
-- {registry}: shard_fence_table or shard_capture_table. Parameters: table name, tenant column (upper case).
MERGE INTO {registry} (table_name, tenant_column) KEY (table_name) VALUES (?, ?)
