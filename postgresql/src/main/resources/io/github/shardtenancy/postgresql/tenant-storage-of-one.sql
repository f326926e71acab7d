-- One tenant's rows in one table and an estimate of their bytes, as tenant-storage.sql measures every tenant's.
-- {table}, {tenantColumn}; the tenant id is the one parameter. Reads the tenant's rows.
SELECT COUNT(*), COALESCE(SUM(pg_column_size(t.*)), 0)::bigint
FROM {table} t WHERE t.{tenantColumn} = ?
