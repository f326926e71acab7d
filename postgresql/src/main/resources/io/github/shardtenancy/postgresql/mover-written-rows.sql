-- The rows of a tenant the mover wrote into a table, for the foreign-key check after writes without triggers
-- (copy-lock-parents.sql, copy-missing-parents.sql). {table}, {tenantColumn}; {keys}: AND (k1, k2) IN (key-list.sql)
-- for the written keys, or nothing for every row of the tenant. Parameters: the tenant id, then one text array per
-- key column.
SELECT * FROM {table} WHERE {tenantColumn} = ? {keys}
