-- Each tenant's rows in one table and an estimate of their bytes: the sum of pg_column_size of each row (the row's
-- data as stored, after compression, TOASTed values included; page and tuple headers, free space and indexes not).
-- https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-DBSIZE
-- {table}, {tenantColumn}. Reads the whole table.
SELECT t.{tenantColumn}, COUNT(*), COALESCE(SUM(pg_column_size(t.*)), 0)::bigint
FROM {table} t GROUP BY t.{tenantColumn}
